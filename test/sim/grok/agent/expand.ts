/**
 * `$VAR` / `${VAR}` / `${VAR:-default}` expansion as the real config loader does it:
 * xai-grok-config loader.rs `expand_env_vars_in_string` =
 * `shellexpand::env_with_context_no_errors(input, |name| std::env::var(name).ok())`
 * (shellexpand 3.1.2, pinned in Cargo.lock). Applied by `McpServerConfig::expand_strings`
 * (xai-grok-config-types mcp.rs) to an HTTP server's `url` and header values and a stdio
 * server's `command`, `args`, `env` values and `cwd` — in the process that reads the config (the
 * TUI for the list it sends, the leader for its own merge).
 *
 * shellexpand's rules: a name is a run of alphanumeric (Unicode) or `_` characters; `${…}` ends at
 * the first `}`, a `:-` inside it splits off a default (not at position 0); a variable that is
 * unset (or not valid Unicode) is left as written unless a default is given; `$$` is one `$`; a
 * `$` before anything else stays; an unterminated `${` is kept verbatim.
 */

type Lookup = (name: string) => string | undefined;

const envLookup: Lookup = (name) => process.env[name];

function isNameChar(c: string): boolean {
  return c === "_" || /^[\p{L}\p{N}]$/u.test(c);
}

export function expandEnv(input: string, lookup: Lookup = envLookup): string {
  let out = "";
  let rest = input;
  for (;;) {
    const at = rest.indexOf("$");
    if (at < 0) return out + rest;
    out += rest.slice(0, at);
    rest = rest.slice(at);
    const next = [...rest.slice(1, 3)][0];
    if (next === "{") {
      const close = rest.indexOf("}");
      if (close < 0) {
        out += rest.slice(0, 2);
        rest = rest.slice(2);
        continue;
      }
      const inner = rest.slice(0, close);
      const split = inner.indexOf(":-");
      const hasDefault = split >= 0 && split !== 2;
      const name = rest.slice(2, hasDefault ? split : close);
      const value = lookup(name);
      if (value !== undefined) out += value;
      else if (hasDefault) out += rest.slice(split + 2, close);
      else out += rest.slice(0, close + 1);
      rest = rest.slice(close + 1);
    } else if (next !== undefined && isNameChar(next)) {
      let end = 1;
      for (const c of rest.slice(1)) {
        if (!isNameChar(c)) break;
        end += c.length;
      }
      const name = rest.slice(1, end);
      const value = lookup(name);
      out += value ?? rest.slice(0, end);
      rest = rest.slice(end);
    } else {
      out += "$";
      rest = rest.slice(next === "$" ? 2 : 1);
    }
  }
}
