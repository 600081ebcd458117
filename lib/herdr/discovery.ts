/**
 * Where the Herdr API socket is (docs/design/herdr-socket-api.md §1.1; `session::active_api_socket_path` in
 * `src/session.rs`, `config_dir` in `src/config/io.rs`). Pure: the environment comes in as data.
 *
 * Order: an explicit path from our caller, an explicit session name from our caller (like the
 * herdr CLI's `--session`), `HERDR_SOCKET_PATH` verbatim (set but empty: refused), `HERDR_SESSION=<name>` →
 * `<config_dir>/sessions/<name>/herdr.sock`, else `<config_dir>/herdr.sock`.
 * `XDG_RUNTIME_DIR` plays no part, and `herdr-client.sock` (the TUI protocol) is never the answer.
 */
import { isAbsolute, join, resolve, sep } from "node:path";
import { UsageError } from "../errors.js";
import type { HerdrErrorCode } from "./herdr-error.js";

export interface DiscoveryInput {
  readonly explicitPath?: string | undefined;
  readonly explicitSession?: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `os.tmpdir()`: Herdr's last resort when HOME is unset (`std::env::temp_dir`). */
  readonly tmpdir: string;
  /** Directory a relative result is resolved against. */
  readonly cwd: string;
}

export type SocketSource =
  | "explicit_path"
  | "explicit_session"
  | "HERDR_SOCKET_PATH"
  | "HERDR_SESSION"
  | "default";

export interface DiscoveredSocket {
  /** Absolute path of the JSON API socket. */
  readonly socketPath: string;
  /** `default`, a named session, or null when a verbatim path names no session. */
  readonly sessionName: string | null;
  readonly source: SocketSource;
}

const MAX_SESSION_NAME_BYTES = 64;
const DEFAULT_SESSION = "default";
const SOCKET_FILE = "herdr.sock";

/** `session::validate_name`: 1-64 bytes of [A-Za-z0-9._-], not `.` or `..`. */
export function isValidSessionName(name: string): boolean {
  return (
    name.length > 0 &&
    Buffer.byteLength(name) <= MAX_SESSION_NAME_BYTES &&
    name !== "." &&
    name !== ".." &&
    /^[A-Za-z0-9._-]+$/.test(name)
  );
}

/**
 * `config::config_dir` for a release build on Unix: `$XDG_CONFIG_HOME/herdr` when the variable
 * is set (even to ""), else `$HOME/.config/herdr`, else `<tmp>/herdr`.
 */
export function herdrConfigDir(input: Pick<DiscoveryInput, "env" | "tmpdir" | "cwd">): string {
  const xdg = input.env.XDG_CONFIG_HOME;
  if (xdg !== undefined) return resolve(input.cwd, join(xdg, "herdr"));
  const home = input.env.HOME;
  if (home !== undefined) return resolve(input.cwd, join(home, ".config", "herdr"));
  return resolve(input.cwd, join(input.tmpdir, "herdr"));
}

export function discoverSocket(input: DiscoveryInput): DiscoveredSocket {
  const configDir = herdrConfigDir(input);
  const named = (name: string, source: SocketSource): DiscoveredSocket => {
    if (name === DEFAULT_SESSION) {
      return { socketPath: join(configDir, SOCKET_FILE), sessionName: DEFAULT_SESSION, source };
    }
    if (!isValidSessionName(name)) {
      // Herdr silently falls back to the default session here (`session::active_name`); we
      // refuse instead, so a typo never lands on another server.
      throw new UsageError<HerdrErrorCode>(
        "HERDR_SESSION_INVALID",
        `invalid Herdr session name "${name}"`,
        {
          details: { name, source },
        },
      );
    }
    return {
      socketPath: join(configDir, "sessions", name, SOCKET_FILE),
      sessionName: name,
      source,
    };
  };
  const verbatim = (path: string, source: SocketSource): DiscoveredSocket => {
    if (path === "") {
      const what =
        source === "HERDR_SOCKET_PATH"
          ? "HERDR_SOCKET_PATH is set but empty, so it names no socket (Herdr's own client would connect to an empty path); unset it for the default socket or set it to the socket's path"
          : "the Herdr socket path is empty";
      throw new UsageError<HerdrErrorCode>("HERDR_SOCKET_PATH_EMPTY", what, {
        details: { source },
      });
    }
    const socketPath = isAbsolute(path) ? path : resolve(input.cwd, path);
    return { socketPath, sessionName: inferSessionName(socketPath, configDir), source };
  };

  if (input.explicitPath !== undefined) return verbatim(input.explicitPath, "explicit_path");
  if (input.explicitSession !== undefined) return named(input.explicitSession, "explicit_session");
  // Set but empty is taken verbatim, as Herdr takes it (`active_api_socket_path` returns
  // PathBuf::from("")): it names no socket, so it is refused (HERDR_SOCKET_PATH_EMPTY) rather than
  // read as unset, which would fall back to the default socket, possibly another user's
  // `<tmp>/herdr/herdr.sock`. An empty HERDR_SESSION is unset, for Herdr too (`normalize_name`).
  const envPath = input.env.HERDR_SOCKET_PATH;
  if (envPath !== undefined) return verbatim(envPath, "HERDR_SOCKET_PATH");
  const envSession = input.env.HERDR_SESSION;
  if (envSession !== undefined && envSession !== "") return named(envSession, "HERDR_SESSION");
  return named(DEFAULT_SESSION, "default");
}

/** `…/<config_dir>/herdr.sock` is `default`; `…/sessions/<name>/herdr.sock` is `<name>`. */
export function inferSessionName(socketPath: string, configDir: string): string | null {
  if (socketPath === join(configDir, SOCKET_FILE)) return DEFAULT_SESSION;
  const parts = socketPath.split(sep);
  const n = parts.length;
  if (n >= 3 && parts[n - 1] === SOCKET_FILE && parts[n - 3] === "sessions") {
    const name = parts[n - 2] ?? "";
    if (isValidSessionName(name)) return name;
  }
  return null;
}
