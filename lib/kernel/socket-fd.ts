/**
 * The file descriptor behind a connected `net.Socket`. Node keeps it on the internal `_handle`
 * (a libuv pipe wrap); this is internal but stable on POSIX (docs/design/kernel-proofs.md §1.3, verified with
 * node 20). It is read through Reflect and checked, never cast.
 */
import type { Socket } from "node:net";
import { UsageError } from "../errors.js";

export function socketFd(socket: Socket): number {
  if (typeof socket !== "object" || socket === null) {
    throw new UsageError("INVALID_ARGUMENT", "INVALID_ARGUMENT: expected a connected net.Socket");
  }
  const handle: unknown = Reflect.get(socket, "_handle");
  const fd: unknown =
    typeof handle === "object" && handle !== null ? Reflect.get(handle, "fd") : undefined;
  if (typeof fd !== "number" || !Number.isInteger(fd) || fd < 0) {
    throw new UsageError(
      "INVALID_ARGUMENT",
      "the socket has no open file descriptor (not connected yet, or already destroyed)",
    );
  }
  return fd;
}
