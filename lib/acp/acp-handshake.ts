/**
 * Reaching the owner's session over ACP, one request per stage, so a caller can report (and time)
 * each one: `initialize`, then the session's catalog (after proving the session is resident here),
 * then `session/resume`. lib/acp/handshake.ts builds the requests and reads the answers; the
 * reasons for each choice are docs/design/decisions.md §1.
 *
 * The catalog is judged *before* we attach, so a refused seat (an enabled direct mcp.linear.app
 * endpoint) never touched the owner's session: no resume, no `UpdateMcpServers`. `x.ai/mcp/list`
 * with our session id annotates the resident session whether or not we are attached
 * (`extensions/mcp.rs`, `handle_list`).
 */
import { UsageError, WireError } from "../errors.js";
import type { CatalogContext, CatalogReadiness } from "../grok/catalog.js";
import { AcpError, type AcpErrorCode } from "./acp-error.js";
import { AcpSession } from "./acp-session.js";
import { catalogRefusal } from "./catalog-refusal.js";
import {
  checkSessionInfo,
  type InitializeFacts,
  initializeParams,
  isUnknownSessionError,
  parseAttachResult,
  parseInitializeResult,
  resumeParams,
  sessionInfoParams,
} from "./handshake.js";
import { type AcpSessionOptions, SessionCore } from "./session-core.js";
import type { AcpPipe } from "./transport.js";

export class AcpHandshake {
  readonly sessionId: string;
  readonly #s: SessionCore;
  #init: InitializeFacts | null = null;
  #catalog: CatalogReadiness | null = null;

  private constructor(s: SessionCore) {
    this.#s = s;
    this.sessionId = s.opts.sessionId;
  }

  /** The SDK client over the leader pipe, with the tap in front of it. Nothing is sent yet. */
  static open(pipe: AcpPipe, opts: AcpSessionOptions): AcpHandshake {
    return new AcpHandshake(new SessionCore(pipe, opts));
  }

  /**
   * `initialize` at protocol 1; the agent must offer session loading and `session/resume`.
   * ACP_PROTOCOL_UNSUPPORTED, ACP_LOAD_SESSION_UNSUPPORTED, ACP_RESUME_UNSUPPORTED,
   * ACP_INITIALIZE_INVALID or the agent's WireError.
   */
  async initialize(): Promise<InitializeFacts> {
    this.#init = parseInitializeResult(await this.#s.request("initialize", initializeParams()));
    return this.#init;
  }

  /**
   * Our session is resident in this leader and runs in our cwd (`x.ai/session/info`: read-only),
   * then its MCP catalog, judged with `context` (the profile's plugin servers, the servers this
   * seat added itself; kept for later re-checks). SESSION_UNKNOWN / SESSION_CWD_MISMATCH when it
   * is not ours to attach to; a catalog that refuses (`ok: false`) is returned, not thrown.
   */
  async checkCatalog(context?: CatalogContext): Promise<CatalogReadiness> {
    const { sessionId, cwd } = this.#s.opts;
    if (context !== undefined) this.#s.catalogContext = context;
    try {
      checkSessionInfo(
        await this.#s.request("_x.ai/session/info", sessionInfoParams(sessionId)),
        sessionId,
        cwd,
      );
    } catch (err) {
      throw unknownSession(err, sessionId);
    }
    this.#catalog = await this.#s.listCatalog();
    return this.#catalog;
  }

  /**
   * `session/resume` of the exact session (no replay, no code restore, `mcpServers: []`, both
   * permission keys off so the owner's mode is never re-armed). Only
   * after `initialize` and a catalog that passed: ACP_HANDSHAKE_INCOMPLETE otherwise, and
   * SESSION_UNKNOWN when the agent answers for another session or none.
   */
  async attach(): Promise<AcpSession> {
    const init = this.#init;
    const catalog = this.#catalog;
    if (init === null || catalog === null || !catalog.ok) {
      throw new UsageError<AcpErrorCode>(
        "ACP_HANDSHAKE_INCOMPLETE",
        "attach needs initialize and a passing catalog first",
      );
    }
    const { sessionId, cwd } = this.#s.opts;
    let attachment: ReturnType<typeof parseAttachResult>;
    try {
      attachment = parseAttachResult(
        await this.#s.request("session/resume", resumeParams(sessionId, cwd)),
        sessionId,
      );
    } catch (err) {
      throw unknownSession(err, sessionId);
    }
    this.#s.attached(attachment);
    return new AcpSession(this.#s, init, attachment, catalog);
  }

  /** Close the ACP connection (the leader connection is the caller's to close). */
  close(): void {
    this.#s.sdk.close();
  }
}

/**
 * The whole handshake in one call: initialize, catalog (refused as LINEAR_DIRECT_ENABLED or
 * CATALOG_NOT_SESSION_SCOPED when it does not pass), attach. On any refusal the ACP connection
 * is closed (the leader connection stays the caller's).
 */
export async function attachSession(pipe: AcpPipe, opts: AcpSessionOptions): Promise<AcpSession> {
  const handshake = AcpHandshake.open(pipe, opts);
  try {
    await handshake.initialize();
    const catalog = await handshake.checkCatalog();
    if (!catalog.ok) throw catalogRefusal(catalog);
    return await handshake.attach();
  } catch (err) {
    handshake.close();
    throw err;
  }
}

/** An attach-time JSON-RPC error that means "no such live session" becomes SESSION_UNKNOWN. */
function unknownSession(err: unknown, sessionId: string): unknown {
  if (
    err instanceof WireError &&
    isUnknownSessionError({ code: Number(err.code), message: err.message, data: err.data })
  ) {
    return new AcpError("SESSION_UNKNOWN", `session ${sessionId} is not live in this leader`, {
      details: { sessionId },
      cause: err,
    });
  }
  return err;
}
