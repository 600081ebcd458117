/**
 * The raw native surface of `grok_seat_proofs.node`, typed in one place (the fsevents / node-pty
 * habit: one typed surface, backend picked once at load). Results are `unknown` on purpose: the
 * addon is outside bytes too, so every result goes through the valibot schemas below before the
 * rest of lib/kernel sees it (style.md habit 6).
 */
import * as v from "valibot";

/** A native process handle (native/addon.cc `ProcessHandle`). */
export interface NativeProcessHandle {
  readonly pid: number;
  readonly identityKind: string;
  readonly identity: string;
  /** pidfd_send_signal / proc_signal_with_audittoken; throws a native error when gone. */
  signal(signal: number): void;
  isAlive(): boolean;
  /** Calls `onExit` once when the process exits; returns true if it had already exited. */
  watchExit(onExit: () => void): boolean;
  close(): void;
}

export interface NativeAddon {
  /** flock(2) on fd; false = would block (only with nonBlocking). */
  flock(fd: number, op: "ex" | "sh" | "un", nonBlocking: boolean): boolean;
  processFacts(pid: number): unknown;
  socketFacts(path: string, dir: string): unknown;
  peerCredentials(fd: number): unknown;
  peerSocketFile(fd: number): unknown;
  kernelInfo(): unknown;
  openProcessHandle(pid: number, expectedIdentity: string | null): NativeProcessHandle;
}

const identityKind = v.picklist(["linux-pidfs", "linux-boot-ticks", "darwin-uniqueid"]);
const nonNegativeInt = v.pipe(v.number(), v.integer(), v.minValue(0));
const positiveInt = v.pipe(v.number(), v.integer(), v.minValue(1));
const decimal = v.pipe(v.string(), v.regex(/^\d+$/));
const fileType = v.picklist(["socket", "file", "directory", "symlink", "fifo", "char", "block"]);

/** processFacts' flat result, in native/addon.cc order (an array: it is the hot call). */
export type RawProcessFacts = readonly [
  pid: number,
  ppid: number,
  uid: number,
  euid: number,
  executable: string | null,
  executableDeleted: boolean,
  cwd: string | null,
  tty: string | null,
  startTimeUs: number,
  startTimePrecisionUs: number,
  identityKind: "linux-pidfs" | "linux-boot-ticks" | "darwin-uniqueid",
  identity: string,
];

const isCount = (x: unknown): x is number =>
  typeof x === "number" && Number.isSafeInteger(x) && x >= 0;
const isPathOrNull = (x: unknown): x is string | null => x === null || typeof x === "string";
const isIdentityKind = (x: unknown): x is RawProcessFacts[10] =>
  x === "linux-pidfs" || x === "linux-boot-ticks" || x === "darwin-uniqueid";

/**
 * Exhaustive check of processFacts' tuple (hand-written instead of a valibot schema because it
 * runs on every call and must stay well under a microsecond). Returns the first bad field or null.
 */
export function badProcessFactsField(raw: unknown): string | null {
  if (!Array.isArray(raw) || raw.length !== 12) return "<root>";
  const [pid, ppid, uid, euid, exe, deleted, cwd, tty, start, precision, kind, identity] = raw;
  if (!isCount(pid) || pid === 0) return "pid";
  if (!isCount(ppid)) return "ppid";
  if (!isCount(uid)) return "uid";
  if (!isCount(euid)) return "euid";
  if (!isPathOrNull(exe)) return "executable";
  if (typeof deleted !== "boolean") return "executableDeleted";
  if (!isPathOrNull(cwd)) return "cwd";
  if (!isPathOrNull(tty)) return "tty";
  if (!isCount(start)) return "startTimeUs";
  if (!isCount(precision) || precision === 0) return "startTimePrecisionUs";
  if (!isIdentityKind(kind)) return "identityKind";
  if (typeof identity !== "string" || identity === "") return "identity";
  return null;
}

export function isRawProcessFacts(raw: unknown): raw is RawProcessFacts {
  return badProcessFactsField(raw) === null;
}

const RawPathFacts = v.object({
  type: v.union([fileType, v.literal("other")]),
  inode: decimal,
  device: decimal,
  uid: nonNegativeInt,
  mode: v.pipe(nonNegativeInt, v.maxValue(0o7777)),
});

export const RawSocketFacts = v.object({
  file: RawPathFacts,
  dir: RawPathFacts,
  listeners: v.array(positiveInt),
  listenersTruncated: v.boolean(),
  listeningSockets: v.nullable(nonNegativeInt),
});

export const RawPeerCredentials = v.object({
  pid: nonNegativeInt,
  uid: nonNegativeInt,
  gid: nonNegativeInt,
  method: v.picklist(["SO_PEERPIDFD", "SO_PEERCRED", "LOCAL_PEERTOKEN"]),
  identityKind: v.nullable(identityKind),
  identity: v.nullable(v.string()),
});

export const RawPeerSocketFile = v.object({
  ownSocketInode: decimal,
  peerSocketInode: decimal,
  device: v.nullable(decimal),
  inode32: v.nullable(nonNegativeInt),
});

export const RawKernelInfo = v.object({
  platform: v.picklist(["linux", "darwin"]),
  release: v.string(),
  bootId: v.pipe(v.string(), v.minLength(1)),
  pidfsIdentity: v.boolean(),
  peerPidfd: v.boolean(),
  sunPathMax: positiveInt,
});

/** The error object addon.cc throws: `{ code, pid, syscall, errno }` on an Error. */
export const RawNativeError = v.object({
  code: v.picklist([
    "NO_SUCH_PROCESS",
    "ACCESS_DENIED",
    "ZOMBIE",
    "UNSUPPORTED",
    "SYSCALL_FAILED",
    "INVALID_ARGUMENT",
  ]),
  pid: v.nullable(positiveInt),
  syscall: v.string(),
  errno: nonNegativeInt,
  message: v.string(),
});

const methodNames = [
  "flock",
  "processFacts",
  "socketFacts",
  "peerCredentials",
  "peerSocketFile",
  "kernelInfo",
  "openProcessHandle",
] as const;

/** The names a loaded module must export as functions to count as this addon. */
export function missingExports(mod: unknown): string[] {
  if (typeof mod !== "object" || mod === null) return [...methodNames];
  return methodNames.filter((name) => typeof Reflect.get(mod, name) !== "function");
}

/** Narrow a loaded module to the addon surface after `missingExports` returned nothing. */
export function isNativeAddon(mod: unknown): mod is NativeAddon {
  return missingExports(mod).length === 0;
}
