/**
 * Which Herdr server answers on a socket: the session descriptor (lib/proof/session-descriptor.ts),
 * read client-side because the socket API exposes no server pid, start time or instance id
 * (docs/design/herdr-socket-api.md §2.2). The socket file's identity comes from lstat, the listener
 * from the peer credentials of our own connection (docs/design/kernel-proofs.md §2.3).
 */
import { lstat } from "node:fs/promises";
import type { HerdrClient, RequestOptions } from "../herdr/client.js";
import { HerdrError } from "../herdr/herdr-error.js";
import type { KernelPort } from "../kernel/index.js";
import type { SessionDescriptor } from "../proof/session-descriptor.js";

async function socketFile(path: string): Promise<SessionDescriptor["socketFile"]> {
  const st = await lstat(path, { bigint: true }).catch((err: NodeJS.ErrnoException) => {
    throw new HerdrError("HERDR_SOCKET_MISSING", `cannot lstat ${path}: ${err.code}`, {
      details: { path, errno: err.code ?? null },
      cause: err,
    });
  });
  if (!st.isSocket()) {
    throw new HerdrError("HERDR_NOT_A_SOCKET", `${path} is not a unix socket`, {
      details: { path },
    });
  }
  return {
    device: String(st.dev),
    inode: String(st.ino),
    uid: Number(st.uid),
    mode: Number(st.mode & 0o7777n),
  };
}

/**
 * Assemble the session descriptor: lstat the socket file, `ping` on a connection whose peer
 * credentials name the listening process, lstat again. A socket file that changed in between
 * means a server was re-bound mid-read: refused, never averaged.
 */
export async function readSessionDescriptor(
  client: HerdrClient,
  kernel: KernelPort,
  sessionName: string | null,
  options: RequestOptions = {},
): Promise<SessionDescriptor> {
  const before = await socketFile(client.socketPath);
  const { result: pong, peer } = await client.requestWithPeer(
    "ping",
    {},
    (socket) => kernel.peerCredentials(socket),
    options,
  );
  const after = await socketFile(client.socketPath);
  if (before.device !== after.device || before.inode !== after.inode) {
    throw new HerdrError(
      "HERDR_DESCRIPTOR_UNSTABLE",
      "the Herdr socket was re-bound while reading",
      {
        details: { before, after },
      },
    );
  }
  const caps = pong.capabilities ?? null;
  return {
    socketPath: client.socketPath,
    sessionName,
    version: pong.version,
    protocol: pong.protocol ?? null,
    capabilities:
      caps === null
        ? null
        : { liveHandoff: caps.live_handoff, detachedServerDaemon: caps.detached_server_daemon },
    socketFile: after,
    server: {
      pid: peer.pid,
      uid: peer.uid,
      identity:
        peer.identity === null ? null : { kind: peer.identity.kind, value: peer.identity.value },
      method: peer.method,
    },
  };
}
