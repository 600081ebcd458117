/** lib/kernel: the only layer that touches the native addon. Exports by name. */

export { processArgv } from "./argv.js";
export { type FlockMode, flock } from "./flock.js";
export { openProcessHandle, signalNumber } from "./handle.js";
export { type KernelInfoDetails, kernelInfo } from "./info.js";
export { KernelError } from "./kernel-error.js";
export { addonLoaded } from "./loader.js";
export { type PathEntry, pathAncestry } from "./path-ancestry.js";
export { peerCredentials, peerCredentialsOfFd } from "./peer.js";
export { type PeerSocketFile, peerBoundTo, peerSocketFile } from "./peer-socket.js";
export {
  identityJson,
  type KernelPort,
  type ProcessRead,
  readProcess,
  sameIdentity,
  socketFactsFor,
  systemKernel,
} from "./port.js";
export { processFacts } from "./process.js";
export { ptyMasters } from "./procfs-read.js";
export {
  FileReadError,
  type FileReadErrorCode,
  type RegularFile,
  readRegularFile,
} from "./regular-file.js";
export { type SocketFactsOptions, socketFacts } from "./socket.js";
export type {
  FileType,
  KernelFailureCode,
  KernelInfo,
  PeerCredentials,
  ProcessFacts,
  ProcessHandle,
  ProcessIdentity,
  SocketDirFacts,
  SocketFacts,
} from "./types.js";
