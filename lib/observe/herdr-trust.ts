/**
 * Is this Herdr server ours? The facts the pure checks of lib/proof/herdr-trust.ts need (our uid,
 * lstat of the socket's directory and every directory above it), and the gate a `HerdrClient`
 * runs on each of its connections before it writes a request other than `ping`: the socket a file
 * of ours in a directory only we can change, and the peer of that very connection a process of our
 * uid. A server that fails gets nothing but `ping` (HERDR_UNTRUSTED, naming the check).
 */
import { lstatSync } from "node:fs";
import { dirname } from "node:path";
import type { CheckResult } from "../check.js";
import { HerdrClient, type HerdrClientOptions, type HerdrGate } from "../herdr/client.js";
import { HerdrError } from "../herdr/herdr-error.js";
import { type KernelPort, pathAncestry } from "../kernel/index.js";
import { checkHerdrServer, checkSocketDir, type HerdrTie } from "../proof/herdr-trust.js";
import type { SessionDescriptor } from "../proof/session-descriptor.js";

/** Our real uid (the owner a server of ours runs as); -1 where there is none. */
export function ourUid(): number {
  return typeof process.getuid === "function" ? process.getuid() : -1;
}

export function readHerdrTie(socketPath: string, uid: number = ourUid()): HerdrTie {
  return { uid, socketDir: pathAncestry(dirname(socketPath)) };
}

/** The three trust checks for a descriptor just read (`herdr.socket_owner`, `_dir`, `server_uid`). */
export function herdrTrustChecks(
  descriptor: SessionDescriptor,
  uid: number = ourUid(),
): CheckResult[] {
  return checkHerdrServer(descriptor, readHerdrTie(descriptor.socketPath, uid));
}

function untrusted(c: CheckResult, method: string, socketPath: string): HerdrError {
  return new HerdrError(
    "HERDR_UNTRUSTED",
    `not sending ${method}: ${c.reason ?? "the Herdr server is not ours"}`,
    { details: { check: c.check, method, socketPath, received: c.received } },
  );
}

/** The gate of a client that only talks to a Herdr server of ours (see the file comment). */
export function herdrGate(kernel: KernelPort, uid: number = ourUid()): HerdrGate {
  return (socket, { method, socketPath }) => {
    const st = lstatSync(socketPath, { throwIfNoEntry: false });
    if (st === undefined || !st.isSocket() || st.uid !== uid) {
      throw untrusted(
        {
          check: "herdr.socket_owner",
          ok: false,
          expected: uid,
          received: st === undefined ? null : st.uid,
          reason: `${socketPath} is not a socket of ours`,
        },
        method,
        socketPath,
      );
    }
    const dir = checkSocketDir(readHerdrTie(socketPath, uid));
    if (!dir.ok) throw untrusted(dir, method, socketPath);
    const peer = kernel.peerCredentials(socket);
    if (peer.uid !== uid) {
      throw untrusted(
        {
          check: "herdr.server_uid",
          ok: false,
          expected: uid,
          received: peer.uid,
          reason: `the process serving ${socketPath} (pid ${peer.pid}) runs as uid ${peer.uid}, not as us`,
        },
        method,
        socketPath,
      );
    }
  };
}

/** A Herdr client gated to a server of ours. */
export function trustedHerdrClient(
  options: Omit<HerdrClientOptions, "gate">,
  kernel: KernelPort,
  uid: number = ourUid(),
): HerdrClient {
  return new HerdrClient({ ...options, gate: herdrGate(kernel, uid) });
}
