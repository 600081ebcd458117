/**
 * Process handles for safe signalling and exit observation (docs/design/kernel-proofs.md §3 "TOCTOU").
 * Linux: a pidfd kept open; pidfd_send_signal never reaches a recycled pid; `exited` resolves when
 * the pidfd turns readable. macOS: the p_uniqueid is re-checked before every signal, which then
 * goes through proc_signal_with_audittoken (macOS 14.4+, the kernel re-checks pid + pidversion)
 * or kill(); `exited` comes from kqueue EVFILT_PROC NOTE_EXIT. No kill(pid, 0) polling anywhere.
 */
import { constants } from "node:os";
import { GrokSeatError, UsageError } from "../errors.js";
import { optionalIdentity, requirePid } from "./arguments.js";
import type { NativeProcessHandle } from "./binding.js";
import { KernelError } from "./kernel-error.js";
import { callNative, typedError } from "./loader.js";
import type { ProcessHandle, ProcessIdentity } from "./types.js";

function identityKind(kind: string): ProcessIdentity["kind"] {
  if (kind === "linux-pidfs" || kind === "linux-boot-ticks" || kind === "darwin-uniqueid") {
    return kind;
  }
  throw new KernelError("SYSCALL_FAILED", {
    pid: null,
    syscall: "openProcessHandle",
    errno: 0,
    message: `SYSCALL_FAILED: unknown identity kind ${kind}`,
  });
}

/** A signal name or number as the number the kernel takes. */
export function signalNumber(signal: NodeJS.Signals | number): number {
  if (typeof signal === "number") {
    if (Number.isInteger(signal) && signal >= 0 && signal <= 128) return signal;
  } else {
    const n: unknown = Reflect.get(constants.signals, signal);
    if (typeof n === "number") return n;
  }
  throw new UsageError("INVALID_ARGUMENT", `not a signal: ${String(signal)}`);
}

class KernelProcessHandle implements ProcessHandle {
  readonly pid: number;
  readonly identity: ProcessIdentity;
  readonly #native: NativeProcessHandle;
  #closed = false;
  #exited: Promise<void> | undefined;
  #rejectExited: ((err: Error) => void) | undefined;

  constructor(native: NativeProcessHandle) {
    this.#native = native;
    this.pid = native.pid;
    this.identity = { kind: identityKind(native.identityKind), value: native.identity };
  }

  signal(signal: NodeJS.Signals | number): void {
    const sig = signalNumber(signal);
    this.#ensureOpen();
    try {
      this.#native.signal(sig);
    } catch (err) {
      throw typedError(err);
    }
  }

  isAlive(): boolean {
    this.#ensureOpen();
    try {
      return this.#native.isAlive();
    } catch (err) {
      throw typedError(err);
    }
  }

  /**
   * Resolves when the kernel reports that this very process exited. The watch starts on first
   * access and, like a ChildProcess, keeps the event loop alive until the exit or close(); after
   * close() without an exit it rejects with HANDLE_CLOSED.
   */
  get exited(): Promise<void> {
    if (this.#exited !== undefined) return this.#exited;
    if (this.#closed) {
      this.#exited = Promise.reject(new GrokSeatError("HANDLE_CLOSED", "the handle was closed"));
    } else {
      this.#exited = new Promise<void>((resolve, reject) => {
        this.#rejectExited = reject;
        try {
          if (this.#native.watchExit(() => resolve())) resolve();
        } catch (err) {
          reject(typedError(err));
        }
      });
    }
    // A caller that never awaits must not crash the process with an unhandled rejection.
    this.#exited.catch(() => {});
    return this.#exited;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#native.close();
    this.#rejectExited?.(new GrokSeatError("HANDLE_CLOSED", "the handle was closed"));
  }

  #ensureOpen(): void {
    if (this.#closed) throw new UsageError("HANDLE_CLOSED", "the process handle is closed");
  }
}

/**
 * Open a handle on `pid`. With `expectedIdentity` (recorded earlier), a process with another
 * identity under that pid is refused with NO_SUCH_PROCESS: the recorded process is gone.
 */
export function openProcessHandle(pid: number, expectedIdentity?: ProcessIdentity): ProcessHandle {
  requirePid(pid, "openProcessHandle");
  optionalIdentity(expectedIdentity, "openProcessHandle");
  const native = callNative((n) => n.openProcessHandle(pid, expectedIdentity?.value ?? null));
  const handle = new KernelProcessHandle(native);
  if (expectedIdentity !== undefined && expectedIdentity.kind !== handle.identity.kind) {
    handle.close();
    throw new KernelError("NO_SUCH_PROCESS", {
      pid,
      syscall: "identity check",
      errno: 0,
      message: `NO_SUCH_PROCESS: pid ${pid} has a ${handle.identity.kind} identity, expected ${expectedIdentity.kind}`,
    });
  }
  return handle;
}
