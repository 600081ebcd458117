/**
 * The Herdr session descriptor, assembled client-side because the socket API exposes no server
 * pid, start time or instance id (docs/design/herdr-socket-api.md §2.2). It binds *which* Herdr
 * server we talk to: the socket path, its session name, what `ping` says (version, protocol,
 * capabilities), the socket file's identity (lstat dev+ino: it changes every time a server binds,
 * including after a live handoff) and the listening process from the connection's peer
 * credentials (docs/design/kernel-proofs.md §2.3). A record of facts, so it lives with the proofs;
 * the I/O that fills it is lib/observe/herdr-descriptor.ts.
 */
import * as v from "valibot";

const uint = v.pipe(v.number(), v.integer(), v.minValue(0));

/** Mirrors `ProcessIdentity` in `lib/kernel/types.ts` for records read back from JSON. */
export const ProcessIdentitySchema = v.object({
  kind: v.picklist(["linux-pidfs", "linux-boot-ticks", "darwin-uniqueid"]),
  value: v.string(),
});

export const SessionDescriptorSchema = v.object({
  socketPath: v.string(),
  sessionName: v.nullable(v.string()),
  version: v.string(),
  protocol: v.nullable(uint),
  capabilities: v.nullable(
    v.object({ liveHandoff: v.boolean(), detachedServerDaemon: v.boolean() }),
  ),
  /** lstat of the socket path; 64-bit numbers as decimal strings. */
  socketFile: v.object({ device: v.string(), inode: v.string(), uid: uint, mode: uint }),
  /** The process that called listen() on the socket, from peer credentials of a connection. */
  server: v.object({
    pid: uint,
    uid: uint,
    identity: v.nullable(ProcessIdentitySchema),
    method: v.picklist(["SO_PEERPIDFD", "SO_PEERCRED", "LOCAL_PEERTOKEN"]),
  }),
});
export type SessionDescriptor = v.InferOutput<typeof SessionDescriptorSchema>;
