/**
 * The Grok profile (GROK_HOME) a seat runs with. The library never signs in, changes accounts or
 * installs a plugin (seed ADR 0224): the profile is either
 * - an explicitly supplied GROK_HOME (`grok-home`), used as it is; or
 * - a temporary private profile (`temporary`): a fresh 0700 directory into which only an
 *   explicitly supplied, existing login file is copied, as `auth.json`, mode 0600.
 *
 * The login file's name is Grok's: `$GROK_HOME/auth.json`, read by `read_auth_json` and written
 * by `write_auth_json` under the advisory `auth.json.lock` (xai-grok-shell `src/auth/storage.rs`,
 * `src/auth/manager.rs`; the TUI reads `grok_home.join("auth.json")`, `pager/app/effects/mod.rs`).
 * Nothing else is copied: no config, no sessions, no plugins, no MCP servers.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  realpathSync,
} from "node:fs";
import { join } from "node:path";
import { type CheckResult, expectEqual, fail, pass } from "../check.js";
import { pathAncestry } from "../kernel/index.js";
import { checkOwnDir, checkSafePath } from "../proof/safe-path.js";
import { octal } from "../proof/socket.js";
import { writeNewPrivateFile } from "./private-file.js";
import { checkPrivateDir } from "./runtime-dir.js";

/** `$GROK_HOME/auth.json` (xai-grok-shell `auth/storage.rs`). */
export const LOGIN_FILE_NAME = "auth.json";
/** A login file is a small JSON document; anything larger is not one. */
const MAX_LOGIN_BYTES = 1024 * 1024;

export type ProfileSpec =
  | { readonly kind: "grok-home"; readonly grokHome: string }
  | { readonly kind: "temporary"; readonly loginFile: string };

/** The profile as the seat uses and records it. */
export interface Profile {
  readonly kind: ProfileSpec["kind"];
  /** Canonical GROK_HOME passed to the TUI (and so to its leader). */
  readonly grokHome: string;
  /** For a temporary profile: where the login came from and where it went. */
  readonly loginFile: {
    readonly source: string;
    readonly copiedTo: string;
    readonly bytes: number;
  } | null;
}

function euid(): number {
  return typeof process.geteuid === "function" ? process.geteuid() : -1;
}

function canonical(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** Preflight: the spec names something usable. No file is created here. */
export function checkProfileSpec(spec: ProfileSpec): CheckResult[] {
  if (spec.kind === "grok-home") {
    const real = canonical(spec.grokHome);
    if (real === null) {
      return [
        fail("profile.grok_home", "an existing directory", null, `${spec.grokHome} does not exist`),
      ];
    }
    const st = lstatSync(real);
    // GROK_HOME holds config.toml (MCP servers the TUI starts as the owner) and auth.json: nobody
    // else may write into it, or rename it or a directory above it (lib/proof/safe-path.ts).
    const ancestry = pathAncestry(real);
    return [
      expectEqual(
        "profile.grok_home",
        "directory",
        st.isDirectory() ? "directory" : "other",
        `${real} is not a directory`,
      ),
      expectEqual("profile.grok_home_owner", euid(), st.uid, `${real} is owned by another user`),
      ...(st.isDirectory()
        ? [
            checkOwnDir("profile.grok_home_mode", ancestry[0], euid()),
            checkSafePath("profile.grok_home_path", ancestry.slice(1), euid()),
          ]
        : []),
    ];
  }
  const st = lstatSync(spec.loginFile, { throwIfNoEntry: false });
  if (st === undefined) {
    return [
      fail(
        "profile.login_file",
        "an existing login file",
        null,
        `${spec.loginFile} does not exist`,
      ),
    ];
  }
  return [
    st.isFile()
      ? pass("profile.login_file", "a regular file", "file")
      : fail(
          "profile.login_file",
          "a regular file",
          st.isSymbolicLink() ? "symlink" : "other",
          `${spec.loginFile} is not a regular file (symlinks are not followed)`,
        ),
    expectEqual(
      "profile.login_file_owner",
      euid(),
      st.uid,
      `${spec.loginFile} is owned by another user`,
    ),
    st.size <= MAX_LOGIN_BYTES
      ? pass("profile.login_file_size", `<= ${MAX_LOGIN_BYTES} bytes`, st.size)
      : fail(
          "profile.login_file_size",
          `<= ${MAX_LOGIN_BYTES} bytes`,
          st.size,
          `${spec.loginFile} is too large to be a login file`,
        ),
  ];
}

/** Read a regular file without following a symlink, bounded. */
function readLogin(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${path} is not a regular file`);
    const buf = Buffer.alloc(MAX_LOGIN_BYTES + 1);
    let filled = 0;
    for (;;) {
      const n = readSync(fd, buf, filled, buf.length - filled, null);
      if (n === 0) break;
      filled += n;
      if (filled > MAX_LOGIN_BYTES) throw new Error(`${path} grew past ${MAX_LOGIN_BYTES} bytes`);
    }
    return buf.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/**
 * Make the profile real. A `grok-home` spec is used as is (canonical path). A `temporary` spec
 * creates `<runtimeDir>/grok-home` (0700) and copies the login file into it (0600, O_EXCL, fsync):
 * the only file the library ever puts into a profile.
 */
export function materializeProfile(
  spec: ProfileSpec,
  runtimeDir: string,
): { profile: Profile; checks: CheckResult[] } {
  if (spec.kind === "grok-home") {
    const grokHome = realpathSync(spec.grokHome);
    return {
      profile: { kind: "grok-home", grokHome, loginFile: null },
      checks: [pass("profile.grok_home", "directory", grokHome)],
    };
  }
  const grokHome = join(runtimeDir, "grok-home");
  mkdirSync(grokHome, { mode: 0o700 });
  const dirChecks = checkPrivateDir(grokHome, "profile.dir");
  const content = readLogin(spec.loginFile);
  const copiedTo = join(grokHome, LOGIN_FILE_NAME);
  writeNewPrivateFile(copiedTo, content);
  const st = lstatSync(copiedTo);
  const mode = st.mode & 0o777;
  return {
    profile: {
      kind: "temporary",
      grokHome,
      loginFile: { source: realpathSync(spec.loginFile), copiedTo, bytes: content.length },
    },
    checks: [
      ...dirChecks,
      expectEqual("profile.login_copy_mode", "0600", octal(mode), `${copiedTo} is not 0600`),
      expectEqual("profile.login_copy_bytes", content.length, st.size, "the copy is incomplete"),
    ],
  };
}
