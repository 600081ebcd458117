/**
 * The login in `$GROK_HOME/auth.json` as the real agent sees it (xai-grok-shell auth/model.rs,
 * storage.rs, manager.rs, agent/auth_method.rs, mvp_agent/acp_agent.rs):
 *
 * - The file is a map from auth scope to a `GrokAuth` (`key`, `auth_mode`, `create_time`,
 *   `user_id`, `email`, `refresh_token`, `expires_at`, `oidc_issuer`, `oidc_client_id`, ...). The
 *   default scope is `https://auth.x.ai::<xAI client id>` (auth/config.rs `auth_scope`), falling
 *   back to the legacy `https://accounts.x.ai/sign-in`; a legacy `web_login` entry never counts
 *   (`lookup_auth`).
 * - A token is expired `GROK_AUTH_EARLY_INVALIDATION_SECS` (default 300 s) before `expires_at`,
 *   or 30 days after `create_time` without one (`is_expired`).
 * - The agent advertises `cached_token` when it holds a current token; at `initialize` an expired
 *   one is silently refreshed first (acp_agent.rs `has_cached_token`). Otherwise the first method
 *   is the interactive `grok.com` login and the TUI shows its sign-in screen.
 * - Refreshing is an OIDC refresh-token exchange (auth/oidc/refresh.rs): the IdP ROTATES the
 *   refresh token and the agent writes the new pair to auth.json. The leader also refreshes
 *   proactively, 5 min (+0-60 s jitter) before `expires_at` (manager.rs
 *   `compute_proactive_sleep`). The TUI never refreshes (acp/mod.rs builds a non-refreshing
 *   AuthManager in leader mode). So a leader started on a COPY of someone's auth.json spends the
 *   refresh token of the original when it refreshes.
 *
 * The simulated IdP accepts every refresh token and answers with a new random access token, a
 * new random refresh token and a one-hour expiry; the interactive login "completes" at once.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { grokHome } from "./env.js";
import { field, isRecord, type JsonRecord, parseJson, str } from "./json.js";
import { trace } from "./trace.js";

export const XAI_OAUTH2_ISSUER = "https://auth.x.ai";
/** GrokComConfig::default's xAI OAuth2 client id (a public identifier, auth/config.rs). */
export const XAI_OAUTH2_CLIENT_ID = "b1a00492-073a-47ea-816f-4c329264a828";
export const AUTH_SCOPE = `${XAI_OAUTH2_ISSUER}::${XAI_OAUTH2_CLIENT_ID}`;
export const LEGACY_SCOPE = "https://accounts.x.ai/sign-in";

const TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;
/** The simulated IdP's access-token lifetime. */
const REFRESHED_TTL_MS = 3600 * 1000;
const JITTER_RANGE_MS = 60 * 1000;

function authPath(): string {
  return join(grokHome(), "auth.json");
}

function readStore(): JsonRecord | undefined {
  try {
    const text = readFileSync(authPath(), "utf8").trim();
    if (text === "") return {};
    const parsed = parseJson(text);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** lookup_auth: the scope's entry (else the legacy scope's), never a legacy web login. */
export function lookupAuth(store: JsonRecord | undefined = readStore()): JsonRecord | undefined {
  const entry = store?.[AUTH_SCOPE] ?? store?.[LEGACY_SCOPE];
  if (!isRecord(entry)) return undefined;
  const mode = str(entry.auth_mode);
  if (mode === "web_login" || mode === "grok") return undefined;
  if (str(entry.key) === undefined) return undefined;
  return entry;
}

function earlyInvalidationMs(): number {
  const raw = process.env.GROK_AUTH_EARLY_INVALIDATION_SECS;
  const secs = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : 300;
  return secs * 1000;
}

/** The instant the token counts as expired (expires_at, or create_time + 30 days, minus buffer). */
function expiryMs(entry: JsonRecord): number {
  const expires = Date.parse(str(entry.expires_at) ?? "");
  if (!Number.isNaN(expires)) return expires - earlyInvalidationMs();
  const created = Date.parse(str(entry.create_time) ?? "");
  return (Number.isNaN(created) ? 0 : created) + TOKEN_TTL_MS - earlyInvalidationMs();
}

export function isExpired(entry: JsonRecord): boolean {
  return Date.now() >= expiryMs(entry);
}

function refreshable(entry: JsonRecord): boolean {
  return (
    str(entry.refresh_token) !== undefined &&
    str(entry.oidc_issuer) !== undefined &&
    str(entry.oidc_client_id) !== undefined
  );
}

function token(prefix: string): string {
  return `${prefix}${randomBytes(18).toString("base64url")}`;
}

/** write_auth_json: the whole map, owner-only, temp + rename. */
function writeStore(store: JsonRecord): void {
  mkdirSync(grokHome(), { recursive: true });
  const tmp = `${authPath()}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, authPath());
}

/**
 * One refresh-token exchange: the entry's key and refresh token are replaced by new ones (the
 * old refresh token is spent) and written back. Undefined when there is nothing to refresh.
 */
export function refreshAuth(reason: "startup" | "proactive" | "authenticate"): boolean {
  const store = readStore();
  const entry = lookupAuth(store);
  if (store === undefined || entry === undefined || !refreshable(entry)) return false;
  const scope = isRecord(store[AUTH_SCOPE]) ? AUTH_SCOPE : LEGACY_SCOPE;
  const spent = str(entry.refresh_token) ?? "";
  store[scope] = {
    ...entry,
    key: token("sim-access-"),
    refresh_token: token("sim-refresh-"),
    expires_at: new Date(Date.now() + REFRESHED_TTL_MS).toISOString(),
  };
  writeStore(store);
  trace("auth_refresh", { reason, spent_refresh_token: spent });
  return true;
}

/** initialize's has_cached_token: a current token, or an expired one that refreshes silently. */
export function hasCachedToken(): boolean {
  const entry = lookupAuth();
  if (entry === undefined) return false;
  if (!isExpired(entry)) return true;
  return refreshAuth("startup");
}

/** The signed-in account's email (consent answers are keyed by it). */
export function accountEmail(): string | undefined {
  return str(field(lookupAuth(), "email"));
}

/** XAI_API_KEY (or the legacy GROK_CODE_XAI_API_KEY): the `xai.api_key` method. */
export function apiKeyFromEnv(): boolean {
  const v = process.env.XAI_API_KEY ?? process.env.GROK_CODE_XAI_API_KEY;
  return v !== undefined;
}

/** The interactive login, completed: a fresh OIDC entry for the default scope. */
export function completeSignIn(): void {
  const store = readStore() ?? {};
  store[AUTH_SCOPE] = {
    key: token("sim-access-"),
    auth_mode: "oidc",
    create_time: new Date().toISOString(),
    user_id: "sim-user",
    email: "owner@example.com",
    refresh_token: token("sim-refresh-"),
    expires_at: new Date(Date.now() + REFRESHED_TTL_MS).toISOString(),
    oidc_issuer: XAI_OAUTH2_ISSUER,
    oidc_client_id: XAI_OAUTH2_CLIENT_ID,
  };
  writeStore(store);
  trace("auth_sign_in", {});
}

/**
 * start_proactive_refresh (the leader): refresh when the token reaches its early-invalidation
 * point minus a 0-60 s jitter, immediately when that is already past; re-arm after each refresh.
 * Non-refreshable logins are polled every 5 minutes (BACKOFF_INTERVAL).
 */
export function startProactiveRefresh(): void {
  const arm = (): void => {
    const entry = lookupAuth();
    let delay = 300_000;
    if (entry !== undefined && refreshable(entry)) {
      const jitter = Math.floor(Math.random() * JITTER_RANGE_MS);
      // setTimeout holds at most 2^31-1 ms; a later refresh point is re-armed from there.
      delay = Math.min(Math.max(0, expiryMs(entry) - jitter - Date.now()), 2 ** 31 - 1);
    }
    const timer = setTimeout(() => {
      const e = lookupAuth();
      if (e !== undefined && refreshable(e) && Date.now() >= expiryMs(e) - JITTER_RANGE_MS) {
        refreshAuth("proactive");
      }
      arm();
    }, delay);
    timer.unref();
  };
  arm();
}
