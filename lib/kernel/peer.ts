/**
 * Credentials of the peer of a connected unix socket our process holds (docs/design/kernel-proofs.md §2.3,
 * §1.3). Linux: SO_PEERCRED (pid/uid/gid at connect()/listen()) + SO_PEERPIDFD, whose pidfs
 * inode is the same identity processFacts reports. macOS: LOCAL_PEERCRED (uid/gid at
 * connect()/listen()) + LOCAL_PEERTOKEN (pid), with an identity only when that process holds the
 * other end of the connection, so a recycled pid is never reported as the peer (types.ts).
 */
import type { Socket } from "node:net";
import { requireFd } from "./arguments.js";
import { RawPeerCredentials } from "./binding.js";
import { peerPidfdSwitchedOff } from "./info.js";
import { callNative, parseNative } from "./loader.js";
import { socketFd } from "./socket-fd.js";
import type { PeerCredentials } from "./types.js";

export function peerCredentials(socket: Socket): PeerCredentials {
  const fd = socketFd(socket);
  return peerCredentialsOfFd(fd);
}

/** The same for a raw fd (a socket received over SCM_RIGHTS, or held by another library). */
export function peerCredentialsOfFd(fd: number): PeerCredentials {
  requireFd(fd, "peerCredentialsOfFd");
  const raw = parseNative(
    RawPeerCredentials,
    callNative((n) => n.peerCredentials(fd)),
    "peerCredentials",
  );
  if (peerPidfdSwitchedOff()) {
    // What a kernel without SO_PEERPIDFD gives: SO_PEERCRED alone, no identity (info.ts).
    return { pid: raw.pid, uid: raw.uid, gid: raw.gid, identity: null, method: "SO_PEERCRED" };
  }
  const identity =
    raw.identityKind !== null && raw.identity !== null
      ? { kind: raw.identityKind, value: raw.identity }
      : null;
  return { pid: raw.pid, uid: raw.uid, gid: raw.gid, identity, method: raw.method };
}
