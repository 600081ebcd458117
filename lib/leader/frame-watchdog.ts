/**
 * Two clocks on a partial frame: an idle timeout (no new byte for `idleMs`) and an overall deadline
 * (the frame is not complete `deadlineMs` after its first byte). The idle clock alone would let a
 * peer hold the connection by trickling one byte just under the limit: the lesson of Node's
 * slowloris fix, CVE-2018-12122, which added `headersTimeout` (docs/design/reliability-plan.md §4, T7 (d)).
 * The leader writes each frame in one `write_all` + `flush` (`leader/protocol.rs`), so a healthy
 * leader never gets near either clock.
 */
export type FrameTimeoutCode = "PARTIAL_FRAME_TIMEOUT" | "FRAME_DEADLINE_EXCEEDED";

export class FrameWatchdog {
  readonly #idleMs: number;
  readonly #deadlineMs: number;
  readonly #onTimeout: (code: FrameTimeoutCode) => void;
  #idle: NodeJS.Timeout | null = null;
  #deadline: NodeJS.Timeout | null = null;

  constructor(idleMs: number, deadlineMs: number, onTimeout: (code: FrameTimeoutCode) => void) {
    this.#idleMs = idleMs;
    this.#deadlineMs = deadlineMs;
    this.#onTimeout = onTimeout;
  }

  /**
   * Call after each chunk. `midFrame`: a frame is incomplete. `suspended`: we paused reading
   * ourselves (back-pressure), so the peer is not the one stalling; the clocks restart on resume.
   */
  update(midFrame: boolean, suspended: boolean): void {
    if (!midFrame || suspended) {
      this.clear();
      return;
    }
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = setTimeout(() => this.#fire("PARTIAL_FRAME_TIMEOUT"), this.#idleMs);
    this.#idle.unref();
    if (!this.#deadline) {
      this.#deadline = setTimeout(() => this.#fire("FRAME_DEADLINE_EXCEEDED"), this.#deadlineMs);
      this.#deadline.unref();
    }
  }

  clear(): void {
    if (this.#idle) clearTimeout(this.#idle);
    if (this.#deadline) clearTimeout(this.#deadline);
    this.#idle = null;
    this.#deadline = null;
  }

  #fire(code: FrameTimeoutCode): void {
    this.clear();
    this.#onTimeout(code);
  }
}
