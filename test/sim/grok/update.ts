/**
 * Self-update as xai-grok-update does it, against a simulated release channel instead of the
 * network (auto_update.rs, version.rs):
 *
 * - The gate (pager-bin main.rs `should_check_for_updates`): off with `--no-auto-update` or when
 *   `GROK_DISABLE_AUTOUPDATER` is set to anything but a falsy spelling (`env_flag_enabled`). Each
 *   process reads its own environment: the TUI for its startup check, the leader for its hourly
 *   one (the leader inherits the TUI's environment).
 * - The channel pointer (`fetch_latest_version`) is `GROK_SIM_LATEST_VERSION`, by default the
 *   running version with the patch number plus one: a release is out.
 * - The managed install: `$GROK_HOME/downloads/grok-<version>-<os>-<arch>` and the symlink
 *   `$GROK_HOME/bin/grok` pointing at it (`activate_verified_download`,
 *   `installed_on_disk_version`); a successful install records `[cli] installer = "internal"` in
 *   config.toml and writes `version.json` (`write_version_cache`). The "downloaded binary" is a
 *   shell script that runs this simulator as that version.
 * - `needs_update`: semver; stable/enterprise refuse a pre-release target; the internal installer
 *   allows a downgrade (`target != current`), npm does not (`target > current`).
 */
import { spawn } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import { rfc3339 } from "./clock.js";
import { envFlagEnabled, grokHome, type SimEnv } from "./env.js";
import { field, parseJson, str } from "./json.js";
import { leaderIsOlderThan } from "./leader/routing.js";
import { selfCommand } from "./self.js";
import { cliAutoUpdate, cliInstaller, updateChannel } from "./settings.js";
import { setTomlKey, updateConfigToml } from "./toml-edit.js";
import { trace } from "./trace.js";

/** version.rs TTL_SECONDS_BEFORE_AUTO_UPDATE: a version.json younger than this skips the check. */
const VERSION_CACHE_TTL_MS = 30 * 60 * 1000;

/** should_check_for_updates (release build): the flag, then GROK_DISABLE_AUTOUPDATER. */
export function updatesEnabled(noAutoUpdateFlag: boolean): boolean {
  if (noAutoUpdateFlag) return false;
  const raw = process.env.GROK_DISABLE_AUTOUPDATER;
  return !(raw !== undefined && envFlagEnabled(raw));
}

/** get_installer: env_installer, then `[cli] installer`, else "internal". */
export function installer(): "npm" | "internal" | "gh-release" {
  const env = process.env.GROK_INSTALLER;
  if (env !== undefined) {
    const v = env.toLowerCase();
    if (v === "npm") return "npm";
    if (v === "internal") return "internal";
    if (v === "gh-release" || v === "gh") return "gh-release";
  } else if (process.env.GROK_MANAGED_BY_NPM !== undefined) return "npm";
  else if (process.env.GROK_MANAGED_BY_INTERNAL !== undefined) return "internal";
  else if (process.env.npm_config_user_agent !== undefined) return "npm";
  const cfg = cliInstaller();
  return cfg === "npm" ? "npm" : cfg === "gh-release" ? "gh-release" : "internal";
}

const SEMVER = /^\d+\.\d+\.\d+(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

/** auto_update.rs needs_update; undefined when a version does not parse or the channel is odd. */
export function needsUpdate(
  current: string,
  target: string,
  channel: string,
  allowDowngrade: boolean,
): boolean | undefined {
  const c = SEMVER.exec(current);
  const t = SEMVER.exec(target);
  if (c === null || t === null) return undefined;
  if (channel === "stable" || channel === "enterprise") {
    if (t[1] !== undefined) return false;
    if (c[1] !== undefined) return true;
  } else if (channel !== "alpha") {
    return undefined;
  }
  return allowDowngrade ? target !== current : leaderIsOlderThan(current, target);
}

function allowsDowngrade(inst: string): boolean {
  return inst === "internal" || inst === "gh-release";
}

function platform(): string {
  const os = process.platform === "darwin" ? "macos" : "linux";
  const arch = process.arch === "arm64" ? "aarch64" : "x86_64";
  return `${os}-${arch}`;
}

/** version_from_versioned_binary_name: `grok-<semver>[-<os>-...]`. */
function versionFromBinaryName(name: string): string | undefined {
  if (!name.startsWith("grok-")) return undefined;
  const parts = name.slice(5).split("-");
  const at = parts.findIndex((p) => ["macos", "linux", "darwin", "windows"].includes(p));
  const v = parts.slice(0, at < 0 ? parts.length : at).join("-");
  return SEMVER.test(v) ? v : undefined;
}

/** installed_on_disk_version: the target of `$GROK_HOME/bin/grok`, if it names a live binary. */
export function diskVersion(): string | undefined {
  const app = join(grokHome(), "bin", "grok");
  try {
    const target = readlinkSync(app);
    statSync(app);
    return versionFromBinaryName(basename(target));
  } catch {
    return undefined;
  }
}

/** disk_version_for_installer: only installers that maintain the symlink have one. */
function diskVersionFor(inst: string): string | undefined {
  return inst === "internal" || inst === "gh-release" ? diskVersion() : undefined;
}

export function writeVersionCache(version: string, stable: string | undefined): void {
  const path = join(grokHome(), "version.json");
  mkdirSync(grokHome(), { recursive: true });
  const doc: Record<string, unknown> = { version };
  if (stable !== undefined) doc.stable_version = stable;
  doc.checked_at = rfc3339();
  writeFileSync(`${path}.tmp`, JSON.stringify(doc, null, 2));
  renameSync(`${path}.tmp`, path);
}

export function versionCacheFresh(): boolean {
  try {
    const doc = parseJson(readFileSync(join(grokHome(), "version.json"), "utf8"));
    const at = Date.parse(str(field(doc, "checked_at")) ?? "");
    return !Number.isNaN(at) && Date.now() - at < VERSION_CACHE_TTL_MS;
  } catch {
    return false;
  }
}

/**
 * run_install_script. internal / gh-release (install_internal + activate_verified_download): the
 * versioned binary under `downloads/`, the relative `bin/grok` symlink swapped to it,
 * `[cli] installer = "internal"`. npm installs globally, outside GROK_HOME (install_npm): nothing
 * to write here.
 */
export function installVersion(version: string, inst = installer()): void {
  if (inst === "npm") {
    trace("update_installed", { version, installer: inst });
    return;
  }
  const home = grokHome();
  const downloads = join(home, "downloads");
  const bin = join(home, "bin");
  mkdirSync(downloads, { recursive: true });
  mkdirSync(bin, { recursive: true });
  const name = `grok-${version}-${platform()}`;
  const self = selfCommand();
  const argv = [self.file, ...self.prefix].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const script = `#!/bin/sh\n# grok ${version} (simulated download)\nGROK_SIM_VERSION='${version}' exec ${argv} "$@"\n`;
  writeFileSync(join(downloads, `${name}.part`), script);
  chmodSync(join(downloads, `${name}.part`), 0o755);
  renameSync(join(downloads, `${name}.part`), join(downloads, name));
  const link = join(bin, "grok");
  const tmp = `${link}.tmp-${process.pid}`;
  try {
    unlinkSync(tmp);
  } catch {
    // no leftover
  }
  symlinkSync(join("..", "downloads", name), tmp);
  renameSync(tmp, link);
  updateConfigToml((text) => setTomlKey(text, ["cli"], "installer", "internal"));
  trace("update_installed", { version, installer: inst });
}

export interface EnsureOutcome {
  installed: string | undefined;
  relaunchNeeded: boolean;
}

/**
 * ensure_latest_on_disk (the leader's hourly pass): converge the disk to the pointer, downloading
 * only when the disk is behind it, then say whether the running process differs from the disk.
 */
export function ensureLatestOnDisk(running: string, env: SimEnv): EnsureOutcome {
  const out: EnsureOutcome = { installed: undefined, relaunchNeeded: false };
  const inst = installer();
  const channel = updateChannel();
  const target = env.latestVersion;
  const allow = allowsDowngrade(inst);
  const effective = diskVersionFor(inst) ?? running;
  if (needsUpdate(effective, target, channel, allow) === true) {
    installVersion(target, inst);
    writeVersionCache(target, env.stableVersion);
    out.installed = target;
  }
  const diskNow = diskVersionFor(inst) ?? out.installed;
  if (diskNow !== undefined) {
    out.relaunchNeeded = needsUpdate(running, diskNow, channel, allow) === true;
  }
  return out;
}

/** The leader's check_fn: `[cli] auto_update = false` skips, then ensure_latest_on_disk. */
export function leaderUpdateCheck(running: string, env: SimEnv): boolean {
  if (cliAutoUpdate() === false) return false;
  try {
    return ensureLatestOnDisk(running, env).relaunchNeeded;
  } catch (err) {
    trace("update_failed", { error: String(err) });
    return false;
  }
}

/**
 * check_update_background (the TUI's startup check): a fresh version.json or `[cli] auto_update =
 * false` skips; an up-to-date binary writes version.json; a stale one reports the pointer (the
 * restart hint) and, when the disk is behind too, spawns `grok update --trigger=auto_background`
 * detached (new session, stdio null) to download it.
 */
export function checkUpdateBackground(
  running: string,
  env: SimEnv,
): { latest: string | undefined; downloadPid: number | undefined } {
  const none = { latest: undefined, downloadPid: undefined };
  const inst = installer();
  if (versionCacheFresh()) return none;
  if (cliAutoUpdate() === false) return none;
  const channel = updateChannel();
  const target = env.latestVersion;
  const allow = allowsDowngrade(inst);
  if (needsUpdate(running, target, channel, allow) !== true) {
    writeVersionCache(target, env.stableVersion);
    return none;
  }
  const disk = diskVersionFor(inst);
  const diskBehind =
    disk === undefined ? true : (needsUpdate(disk, target, channel, allow) ?? true);
  let downloadPid: number | undefined;
  if (diskBehind) {
    const self = selfCommand();
    const child = spawn(self.file, [...self.prefix, "update", "--trigger=auto_background"], {
      stdio: "ignore",
      detached: true,
    });
    child.on("error", () => undefined);
    downloadPid = child.pid;
    trace("update_download_spawned", { pid: child.pid, target });
  }
  return { latest: target, downloadPid };
}

/**
 * `grok update [--trigger=T] [--auto]` (run_update): install the pointer when the disk (or, with
 * no managed install, this binary) is behind it; exit 0 either way.
 */
export function runUpdateCommand(running: string, env: SimEnv): number {
  const inst = installer();
  const channel = updateChannel();
  const target = env.latestVersion;
  const effective = diskVersionFor(inst) ?? running;
  if (needsUpdate(effective, target, channel, allowsDowngrade(inst)) !== true) {
    writeVersionCache(target, env.stableVersion);
    process.stderr.write(`Already up to date (${effective}).\n`);
    return 0;
  }
  process.stderr.write(`Updating Grok ${effective} → ${target}\n`);
  installVersion(target, inst);
  writeVersionCache(target, env.stableVersion);
  process.stderr.write(`\n  ✓ grok v${target} installed successfully!\n`);
  return 0;
}
