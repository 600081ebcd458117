/**
 * What `initialize` advertises and what `authenticate` does (agent/auth_method.rs
 * `build_auth_methods` unpinned; mvp_agent/acp_agent.rs `initialize` / `authenticate`):
 * `xai.api_key` when XAI_API_KEY is set, `cached_token` when auth.json holds a current (or
 * silently refreshed) token, then the interactive `grok.com` login. `defaultAuthMethodId` is
 * cached_token when present, else xai.api_key, else absent: the TUI then shows its sign-in screen
 * (pager acp/mod.rs `startup_auth_metadata`: the first method needs an interactive login).
 */
import { apiKeyFromEnv, completeSignIn, hasCachedToken, lookupAuth, refreshAuth } from "../auth.js";
import { RpcFailure } from "./rpc.js";

export interface AuthMethods {
  methods: Record<string, unknown>[];
  defaultId: string | undefined;
}

export function authMethods(): AuthMethods {
  const methods: Record<string, unknown>[] = [];
  let defaultId: string | undefined;
  // A credential found on this machine is offered under its own id and becomes the default.
  const found = (id: string, description: string) => {
    methods.push({ id, name: id, description });
    defaultId = id;
  };
  if (apiKeyFromEnv()) found("xai.api_key", "XAI_API_KEY or api_key/env_key in config.toml");
  if (hasCachedToken()) found("cached_token", "Cached token from ~/.grok/auth.json");
  methods.push({ id: "grok.com", name: "Grok", description: "Sign in with Grok" });
  return { methods, defaultId };
}

/** ACP auth_required (-32000). */
function authRequired(data: string): RpcFailure {
  return new RpcFailure({ code: -32000, message: "Authentication required", data });
}

export function authenticate(methodId: unknown): Record<string, never> {
  switch (methodId) {
    case "cached_token": {
      const entry = lookupAuth();
      if (entry !== undefined && (hasCachedToken() || refreshAuth("authenticate"))) return {};
      throw authRequired(
        entry === undefined
          ? "No cached auth token found"
          : "Session expired, re-authentication required",
      );
    }
    case "xai.api_key":
      if (apiKeyFromEnv()) return {};
      throw authRequired("Set XAI_API_KEY or add api_key/env_key to config.toml.");
    case "grok.com":
    case "oidc":
      // The browser/device login, which the owner finished: the new login lands in auth.json.
      completeSignIn();
      return {};
    default:
      throw new RpcFailure({
        code: -32602,
        message: "Invalid params",
        data: "unknown auth method",
      });
  }
}
