/**
 * What a hire has opened and must close again if it is refused: each resource is taken on with
 * its disposer as it is opened, and `dispose()` closes what is still held, the last taken first
 * (the shape of TC39's AsyncDisposableStack, which Node 20 lacks). A resource handed on to
 * something else (the runtime directory once the TUI lives in it, the socket once the leader
 * connection owns it) is `release`d: it is no longer this stack's to close.
 */
export class DisposeStack {
  readonly #held: { readonly value: unknown; readonly dispose: () => unknown }[] = [];

  /** Take `value` on; `dispose(value)` runs at `dispose()` unless it was released. */
  adopt<T>(value: T, dispose: (value: T) => unknown): T {
    this.#held.push({ value, dispose: () => dispose(value) });
    return value;
  }

  /** Run `fn` at `dispose()`. */
  defer(fn: () => unknown): void {
    this.#held.push({ value: fn, dispose: fn });
  }

  /** `value` is someone else's to close now. */
  release(value: unknown): void {
    const i = this.#held.findIndex((h) => h.value === value);
    if (i >= 0) this.#held.splice(i, 1);
  }

  /**
   * Close everything still held, the last taken first, each awaited; one that fails does not stop
   * the others. Returns what failed (the caller is already refusing: it reports, never throws).
   */
  async dispose(): Promise<unknown[]> {
    const failures: unknown[] = [];
    for (let h = this.#held.pop(); h !== undefined; h = this.#held.pop()) {
      try {
        await h.dispose();
      } catch (err) {
        failures.push(err);
      }
    }
    return failures;
  }
}
