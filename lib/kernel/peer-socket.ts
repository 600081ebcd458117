/**
 * Which file the other end of a connected client socket is bound to (Linux only): sock_diag
 * UNIX_DIAG_PEER gives the accepted socket, whose UNIX_DIAG_VFS is the listener's bound file
 * (docs/design/reliability-plan.md §1.2, A.2). A caller that lstat'ed a path and then connected can prove it
 * reached that very inode, not a file swapped in between. macOS exposes no bound inode
 * (docs/design/kernel-proofs.md §1.2), so there this is UNSUPPORTED.
 */
import type { Socket } from "node:net";
import { requireCount, requireDecimal, requireObject } from "./arguments.js";
import { RawPeerSocketFile } from "./binding.js";
import { callNative, parseNative } from "./loader.js";
import { socketFd } from "./socket-fd.js";

export interface PeerSocketFile {
  /** sockfs inode of our socket. */
  readonly ownSocketInode: string;
  /** sockfs inode of the accepted socket on the other side. */
  readonly peerSocketInode: string;
  /**
   * The file the peer is bound to: user-space st_dev and only the LOW 32 BITS of the inode
   * (udiag_vfs_ino is u32). Null for peers not bound to a file (socketpair, abstract names).
   */
  readonly file: { readonly device: string; readonly inode32: number } | null;
}

/**
 * Throws KernelError SYSCALL_FAILED with errno EAGAIN while the server has not accept()ed the
 * connection yet (the peer is then an embryo socket without an inode): ask after the server's
 * first bytes arrived. ENOTCONN for an unconnected socket; UNSUPPORTED on macOS.
 */
export function peerSocketFile(socket: Socket): PeerSocketFile {
  const fd = socketFd(socket);
  const raw = parseNative(
    RawPeerSocketFile,
    callNative((n) => n.peerSocketFile(fd)),
    "peerSocketFile",
  );
  const file =
    raw.device !== null && raw.inode32 !== null
      ? { device: raw.device, inode32: raw.inode32 }
      : null;
  return { ownSocketInode: raw.ownSocketInode, peerSocketInode: raw.peerSocketInode, file };
}

/**
 * Whether the peer is bound to the file with this lstat dev+ino (as SocketFacts reports them).
 * Only the low 32 bits of the inode can be compared; pair this with the listener's identity.
 */
export function peerBoundTo(
  peer: PeerSocketFile,
  file: { readonly device: string; readonly inode: string },
): boolean {
  const call = "peerBoundTo";
  const peerFile = requireObject(peer, call, "peer")("file");
  const device = requireObject(file, call, "file")("device");
  const inode = requireObject(file, call, "file")("inode");
  requireDecimal(device, call, "file.device");
  requireDecimal(inode, call, "file.inode");
  if (peerFile === null) return false;
  const bound = requireObject(peerFile, call, "peer.file");
  const boundDevice = bound("device");
  const inode32 = bound("inode32");
  requireDecimal(boundDevice, call, "peer.file.device");
  requireCount(inode32, call, "peer.file.inode32");
  return boundDevice === device && (BigInt(inode) & 0xffffffffn) === BigInt(inode32);
}
