/**
 * Whether a profile holds a Grok login the TUI can use without its sign-in screen
 * (`xai-grok-shell/src/auth/storage.rs`, `model.rs` `lookup_auth`: the entry for
 * `https://auth.x.ai::<client id>`, else the legacy `https://accounts.x.ai/sign-in`, never a
 * legacy `web_login`; `agent/auth_method.rs` `build_auth_methods`: `XAI_API_KEY` is a login too).
 * An expired token still counts: `initialize` refreshes it silently. Read-only, bounded.
 */
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";

export const LOGIN_FILE = "auth.json";
const AUTH_SCOPE_PREFIX = "https://auth.x.ai::";
const LEGACY_SCOPE = "https://accounts.x.ai/sign-in";
const MAX_LOGIN_BYTES = 1024 * 1024;

const EntrySchema = v.looseObject({ key: v.string(), auth_mode: v.optional(v.string()) });

export type LoginState = "present" | "missing";

/** The login state of an auth.json's text (a map from auth scope to a login). */
export function loginStateOf(text: string): LoginState {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return "missing";
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return "missing";
  for (const [scope, entry] of Object.entries(doc)) {
    if (!scope.startsWith(AUTH_SCOPE_PREFIX) && scope !== LEGACY_SCOPE) continue;
    const e = v.safeParse(EntrySchema, entry);
    if (e.success && e.output.auth_mode !== "web_login" && e.output.key !== "") return "present";
  }
  return "missing";
}

/** The login state of `<grokHome>/auth.json` (or of an explicit login file), with XAI_API_KEY. */
export async function loginState(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<LoginState> {
  if ((env.XAI_API_KEY ?? "").trim() !== "") return "present";
  try {
    const st = await stat(file);
    if (!st.isFile() || st.size > MAX_LOGIN_BYTES) return "missing";
    return loginStateOf(await readFile(file, "utf8"));
  } catch {
    return "missing";
  }
}

export function loginFileOf(grokHome: string): string {
  return join(grokHome, LOGIN_FILE);
}
