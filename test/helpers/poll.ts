/**
 * The one polling loop of the tests: they wait on a condition, never on a sleep. Each helper that
 * waits (with its own argument order, default timeout and interval) is a thin wrapper around it.
 */

/**
 * Call `fn` every `everyMs` until it returns a value other than undefined, and resolve with it;
 * after `timeoutMs` fail naming `what`.
 */
export async function poll<T>(
  what: string,
  fn: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  everyMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** `poll` for a condition that holds or not. */
export async function pollTrue(
  what: string,
  cond: () => boolean,
  timeoutMs: number,
  everyMs: number,
): Promise<void> {
  await poll(what, () => (cond() ? true : undefined), timeoutMs, everyMs);
}
