/**
 * The binding's surface: what `grok_seat_proofs.node` (native/binding/) exports, typed in one place
 * (the fsevents / node-pty habit: one typed surface, backend picked once at load). Results are
 * `unknown` on purpose: the addon is outside bytes too, so every result goes through the checks
 * below before the rest of lib/kernel sees it (docs/design/style.md habit 6).
 */
import * as v from "valibot";

/** A native process handle (native/binding/handle.cc `ProcessHandle`). */
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
  /** Writes the numbers into `numbers` (see processFactsSlots); returns the four strings. */
  processFacts(pid: number, numbers: Float64Array): unknown;
  /** With a pid, only that process's fds are read; without, our euid's processes or all. */
  socketFacts(path: string, dir: string, pid: number | null, allUsers: boolean): unknown;
  peerCredentials(fd: number): unknown;
  peerSocketFile(fd: number): unknown;
  kernelInfo(): unknown;
  /** macOS KERN_PROCARGS2; UNSUPPORTED elsewhere (Linux reads /proc/<pid>/cmdline). */
  processArgv(pid: number): unknown;
  openProcessHandle(pid: number, expectedIdentity: string | null): NativeProcessHandle;
}

const identityKind = v.picklist(["linux-pidfs", "linux-boot-ticks", "darwin-uniqueid"]);
const nonNegativeInt = v.pipe(v.number(), v.integer(), v.minValue(0));
const positiveInt = v.pipe(v.number(), v.integer(), v.minValue(1));
const decimal = v.pipe(v.string(), v.regex(/^\d+$/));
const fileType = v.picklist(["socket", "file", "directory", "symlink", "fifo", "char", "block"]);

/** processFacts' result, named: the typed array's slots and the four NUL-separated strings. */
export interface RawProcessFacts {
  readonly pid: number;
  readonly ppid: number;
  readonly uid: number;
  readonly euid: number;
  readonly executable: string | null;
  readonly executableDeleted: boolean;
  readonly cwd: string | null;
  readonly tty: string | null;
  readonly startTimeUs: number;
  readonly startTimePrecisionUs: number;
  readonly identityKind: "linux-pidfs" | "linux-boot-ticks" | "darwin-uniqueid";
  readonly identity: string;
}

/** The length of the Float64Array processFacts fills (native/binding/facts.cc). */
export const processFactsSlots = 7;
const HAS_EXECUTABLE = 1;
const EXECUTABLE_DELETED = 2;
const HAS_CWD = 4;
const HAS_TTY = 8;
const identityKinds = ["linux-pidfs", "linux-boot-ticks", "darwin-uniqueid"] as const;

const isCount = (x: number): boolean => Number.isSafeInteger(x) && x >= 0;

/**
 * Name and check processFacts' raw result (hand-written instead of a valibot schema because it
 * runs on every call and must stay well under a microsecond). Returns the facts, or the name of
 * the first field that is wrong.
 */
export function readProcessFacts(
  numbers: Float64Array,
  strings: unknown,
): RawProcessFacts | { readonly bad: string } {
  if (typeof strings !== "string") return { bad: "<root>" };
  const parts = strings.split("\0");
  if (parts.length !== 4) return { bad: "<root>" };
  const [exe = "", cwd = "", tty = "", identity = ""] = parts;
  const [pid = 0, ppid = -1, uid = -1, euid = -1, start = -1, precision = 0, flags = -1] = numbers;
  if (!isCount(pid) || pid === 0) return { bad: "pid" };
  if (!isCount(ppid)) return { bad: "ppid" };
  if (!isCount(uid)) return { bad: "uid" };
  if (!isCount(euid)) return { bad: "euid" };
  if (!isCount(start)) return { bad: "startTimeUs" };
  if (!isCount(precision) || precision === 0) return { bad: "startTimePrecisionUs" };
  if (!isCount(flags) || flags > 0x3f) return { bad: "flags" };
  const kind = identityKinds[flags >> 4];
  if (kind === undefined) return { bad: "identityKind" };
  if (identity === "") return { bad: "identity" };
  const has = (bit: number, s: string): string | null => ((flags & bit) !== 0 ? s : null);
  return {
    pid,
    ppid,
    uid,
    euid,
    executable: has(HAS_EXECUTABLE, exe),
    executableDeleted: (flags & EXECUTABLE_DELETED) !== 0,
    cwd: has(HAS_CWD, cwd),
    tty: has(HAS_TTY, tty),
    startTimeUs: start,
    startTimePrecisionUs: precision,
    identityKind: kind,
    identity,
  };
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

/** processArgv's result: the argument strings, in order. */
export const RawProcessArgv = v.array(v.string());

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

/** The error object the binding throws: `{ code, pid, syscall, errno }` on an Error. */
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
