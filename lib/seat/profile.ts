/**
 * The Grok profile (GROK_HOME) a seat runs with. The library never signs in, changes accounts or
 * installs a plugin (ADR 0224 (docs/design/adr-0224.md)): the profile is either
 * - an explicitly supplied GROK_HOME (`grok-home`), used as it is; or
 * - a temporary private profile (`temporary`): a fresh 0700 directory into which only an
 *   explicitly supplied, existing login file is copied, as `auth.json`, mode 0600, and, only when
 *   the caller names them (`trustedFolders`), the folders the owner already trusts, as
 *   `trusted_folders.toml` (0600). Both are removed with the runtime directory when the hire is
 *   refused or the seat released.
 *
 * A copied login can sign the owner out: Grok's refresh tokens rotate, and the leader refreshes
 * a login that expires within 5 minutes (at once when it already has, then ahead of each expiry),
 * writing the new pair only into the copy (`xai-grok-shell/src/auth/oidc/refresh.rs`,
 * `auth/manager.rs`); the owner's own auth.json then holds a spent refresh token. For a login
 * that refreshes (an OIDC login), prefer the owner's GROK_HOME (`grok-home`).
 * docs/design/decisions.md §12.7.
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
  rmSync,
  unlinkSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { type CheckResult, expectEqual, fail, pass } from "../check.js";
import { isUnsafeTrustRoot, TRUST_FILE } from "../grok/folder-trust.js";
import { LOGIN_FILE } from "../grok/login.js";
import { pathAncestry } from "../kernel/index.js";
import { checkOwnDir, checkSafePath } from "../proof/safe-path.js";
import { octal } from "../proof/socket.js";
import { writeNewPrivateFile } from "./private-file.js";
import { checkPrivateDir } from "./runtime-dir.js";

/** `$GROK_HOME/auth.json` (xai-grok-shell `auth/storage.rs`): grok/login.ts names it once. */
export const LOGIN_FILE_NAME = LOGIN_FILE;
/** A login file is a small JSON document; anything larger is not one. */
const MAX_LOGIN_BYTES = 1024 * 1024;

export type ProfileSpec =
  | { readonly kind: "grok-home"; readonly grokHome: string }
  | {
      readonly kind: "temporary";
      /**
       * The login to copy. Copying an OIDC login can spend the owner's rotating refresh token and
       * sign the owner out (see above): prefer `grok-home` for such a login.
       */
      readonly loginFile: string;
      /**
       * Folders the owner already trusts, recorded in the temporary profile's
       * `trusted_folders.toml` so Grok's folder-trust question is not asked again for them. Only
       * ever from this explicit list: a temporary profile otherwise starts with no trust.
       */
      readonly trustedFolders?: readonly string[];
    };

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
    ...checkTrustedFolders(spec.trustedFolders ?? []),
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

/**
 * Each folder to pre-trust must exist and must not be an over-broad root (not absolute, `/`, the
 * home directory), which Grok itself never records (`trust.rs` `is_unsafe_trust_root`).
 */
function checkTrustedFolders(folders: readonly string[]): CheckResult[] {
  const out: CheckResult[] = [];
  for (const f of folders) {
    const real = canonical(f);
    if (real === null || !lstatSync(real).isDirectory()) {
      out.push(
        fail("profile.trusted_folder", "an existing directory", f, `${f} is not a directory`),
      );
    } else if (isUnsafeTrustRoot(real, canonical(homedir()))) {
      out.push(
        fail(
          "profile.trusted_folder",
          "a folder narrower than / and the home directory",
          real,
          `${f} is too broad to trust (Grok never records it)`,
        ),
      );
    } else out.push(pass("profile.trusted_folder", "an existing directory", real));
  }
  return out;
}

/** `trusted_folders.toml` as Grok writes it (`trust.rs`: `[folders."<key>"]`, trusted, decided_at). */
export function trustStoreText(folders: readonly string[], now: Date): string {
  const at = Math.floor(now.getTime() / 1000);
  return [...new Set(folders.map((f) => realpathSync(f)))]
    .sort()
    .map((k) => `[folders.${JSON.stringify(k)}]\ntrusted = true\ndecided_at = ${at}\n`)
    .join("\n");
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
  const trusted = spec.trustedFolders ?? [];
  const trustChecks: CheckResult[] = [];
  if (trusted.length > 0) {
    const store = join(grokHome, TRUST_FILE);
    writeNewPrivateFile(store, Buffer.from(trustStoreText(trusted, new Date()), "utf8"));
    trustChecks.push(pass("profile.trust_store", "the caller's trusted folders", trusted.length));
  }
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
      ...trustChecks,
    ],
  };
}

/**
 * Remove a temporary profile: the copied login first (a regular file of ours, never followed
 * through a symlink), then the rest of the profile directory. A `grok-home` profile is the
 * owner's and is never touched. Returns what was removed; a path already gone is skipped.
 */
export function removeTemporaryProfile(profile: Profile): string[] {
  if (profile.kind !== "temporary" || profile.loginFile === null) return [];
  const removed: string[] = [];
  const uid = euid();
  const login = profile.loginFile.copiedTo;
  const st = lstatSync(login, { throwIfNoEntry: false });
  if (st?.isFile() === true && st.uid === uid) {
    unlinkSync(login);
    removed.push(login);
  }
  const dir = lstatSync(profile.grokHome, { throwIfNoEntry: false });
  if (dir?.isDirectory() === true && dir.uid === uid) {
    rmSync(profile.grokHome, { recursive: true, force: true });
    removed.push(profile.grokHome);
  }
  return removed;
}
