/**
 * Every error this library throws carries a stable string `code`; callers and tests branch on
 * `code`, never on `message`. Each layer names its codes as a string-literal union with its own
 * subclass (`HerdrError`, `LeaderError`, `GrokError`, `AcpError`, `McpProjectionError`,
 * `DeliveryError`, `KernelError`), so `instanceof` narrows `code` to a union a `switch` can cover.
 * Local failures and failures reported by a peer on the wire are separate classes (see
 * docs/design/style.md, habit 3), and both keep their cause.
 */
export class GrokSeatError<C extends string = string> extends Error {
  readonly code: C;
  /**
   * Structured facts about the failure (pid, syscall, path, …), from the constructor's `details`.
   * Not named `details` on the instance: test runners (uvu) treat an error's `details` as a
   * preformatted diff string and crash on an object, hiding the real failure.
   */
  readonly context: Readonly<Record<string, unknown>>;

  constructor(
    code: C,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.context = Object.freeze({ ...(options.details ?? {}) });
  }

  /** A plain object for `--json` output and logs. */
  toJSON(): { code: C; message: string; details: Record<string, unknown> } {
    return { code: this.code, message: this.message, details: { ...this.context } };
  }
}

/** Bad arguments from our own caller (a pid <= 0, a path longer than sun_path, an unknown flag). */
export class UsageError<C extends string = string> extends GrokSeatError<C> {}

/** Which peer reported a wire error. */
export type WirePeer = "herdr" | "leader" | "acp" | "mcp";

/**
 * An error a peer sent us on the wire: a Herdr `{code,message}` body, a leader `error` frame or
 * control `Err`, a JSON-RPC error object. `code` is the peer's own code as a string
 * (e.g. "pane_not_found", "internal_error", "-32602"); `peer` says who sent it.
 */
export class WireError extends GrokSeatError {
  readonly peer: WirePeer;
  readonly data: unknown;

  constructor(
    peer: WirePeer,
    code: string,
    message: string,
    options: { data?: unknown; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, options);
    this.peer = peer;
    this.data = options.data;
  }
}

/** Narrow an unknown thrown value to a GrokSeatError with one of the given codes. */
export function isErrorCode<C extends string>(
  err: unknown,
  ...codes: readonly C[]
): err is GrokSeatError & { code: C } {
  return err instanceof GrokSeatError && (codes.length === 0 || codes.includes(err.code as C));
}

/**
 * The stable code and message of a thrown value: a GrokSeatError's `code`, or the errno code of a
 * Node system error (`ENOENT`, `EFBIG`, …). Null for anything else: that is a bug, not a failure
 * to report, and each caller says what it does with one.
 */
export function failureOf(
  err: unknown,
): { readonly code: string; readonly message: string } | null {
  if (err instanceof GrokSeatError) return { code: err.code, message: err.message };
  if (err instanceof Error) {
    const code: unknown = Reflect.get(err, "code");
    if (typeof code === "string") return { code, message: err.message };
  }
  return null;
}

/** `failureOf(err)`, or, for anything untyped, the `fallback` code with the thrown value's text. */
export function failureOr(
  err: unknown,
  fallback: string,
): { readonly code: string; readonly message: string } {
  return (
    failureOf(err) ?? { code: fallback, message: err instanceof Error ? err.message : String(err) }
  );
}
