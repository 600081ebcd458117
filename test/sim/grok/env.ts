/**
 * Everything the simulator reads from its environment, parsed once. Real-program variables keep
 * their real meaning (GROK_HOME, GROK_LEADER_SOCKET); `GROK_SIM_*` are the simulator's own
 * versions and fault switches, each documented in test/sim/grok/README.md.
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";

const NonNegativeInt = v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number));

function int(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return undefined;
  const parsed = v.safeParse(NonNegativeInt, raw);
  if (!parsed.success) throw new Error(`${name} must be a non-negative integer, got ${raw}`);
  return parsed.output;
}

function text(name: string): string | undefined {
  const raw = process.env[name];
  return raw === undefined || raw === "" ? undefined : raw;
}

function flag(name: string): boolean {
  const raw = process.env[name];
  return raw !== undefined && raw !== "" && raw !== "0" && raw !== "false";
}

const Owner = v.picklist(["manual", "allow", "deny"]);

export interface SimEnv {
  version: string;
  commit: string;
  leaderVersion: string;
  agentVersion: string;
  /** What the leader compares `client_version` against (VERSION_WITH_COMMIT or "unknown"). */
  leaderBuildVersion: string;
  authDelayMs: number;
  registrationTimeoutMs: number;
  legacyRegistered: boolean;
  earlyRead: boolean;
  wrongPid: number | undefined;
  imposter: boolean;
  /** Test-only force: shut the leader down for auto_update after N ms, gate or no gate. */
  autoUpdateAfterMs: number | undefined;
  /** The leader's update-check interval (LeaderAutoUpdateConfig.check_interval, 1 h). */
  autoUpdateIntervalMs: number;
  /** The release channel's pointer: the newest published build (the simulated GCS bucket). */
  latestVersion: string;
  /** The stable channel pointer (try_fetch_stable_pointer), written to version.json. */
  stableVersion: string;
  /** The settings server's `consent_gate` for this account (RemoteSettings), as JSON text. */
  consentGate: string | undefined;
  crashAfterChunks: number | undefined;
  crashSignal: "SIGKILL" | "SIGABRT";
  dropAfterPrompt: number;
  loseAcksAfterPrompt: number;
  halfCloseAfterPrompt: number;
  ackDelayMs: number;
  loadDelayMs: number;
  chunkDelayMs: number;
  log: string | undefined;
  owner: "manual" | "allow" | "deny";
  ownerDelayMs: number;
  corruptActiveSessions: boolean;
  skipActiveSessions: boolean;
  tuiExitAfterMs: number | undefined;
}

export function readSimEnv(): SimEnv {
  const version = text("GROK_SIM_VERSION") ?? "1.0.48";
  const commit = text("GROK_SIM_COMMIT") ?? "abc1234";
  const leaderVersion = text("GROK_SIM_LEADER_VERSION") ?? version;
  const owner = v.safeParse(Owner, text("GROK_SIM_OWNER") ?? "manual");
  if (!owner.success) throw new Error("GROK_SIM_OWNER must be manual, allow or deny");
  return {
    version,
    commit,
    leaderVersion,
    agentVersion: text("GROK_SIM_AGENT_VERSION") ?? version,
    // server.rs LEADER_VERSION = option_env!("VERSION_WITH_COMMIT") in the shell crate, which the
    // pager-bin build script does not set: "unknown", so no mismatch notice unless a test asks.
    leaderBuildVersion: text("GROK_SIM_LEADER_BUILD_VERSION") ?? "unknown",
    authDelayMs: int("GROK_SIM_AUTH_DELAY_MS") ?? 0,
    registrationTimeoutMs: int("GROK_SIM_REGISTRATION_TIMEOUT_MS") ?? 30_000,
    legacyRegistered: flag("GROK_SIM_LEGACY_REGISTERED"),
    earlyRead: flag("GROK_SIM_EARLY_READ"),
    wrongPid: int("GROK_SIM_WRONG_PID"),
    imposter: flag("GROK_SIM_IMPOSTER"),
    autoUpdateAfterMs: int("GROK_SIM_AUTO_UPDATE_AFTER_MS"),
    autoUpdateIntervalMs: int("GROK_SIM_AUTO_UPDATE_INTERVAL_MS") ?? 60 * 60 * 1000,
    latestVersion: text("GROK_SIM_LATEST_VERSION") ?? nextPatch(version),
    stableVersion:
      text("GROK_SIM_STABLE_VERSION") ?? text("GROK_SIM_LATEST_VERSION") ?? nextPatch(version),
    consentGate: text("GROK_SIM_CONSENT_GATE"),
    crashAfterChunks: int("GROK_SIM_CRASH_AFTER_CHUNKS"),
    crashSignal: text("GROK_SIM_CRASH_SIGNAL") === "SIGABRT" ? "SIGABRT" : "SIGKILL",
    dropAfterPrompt: int("GROK_SIM_DROP_AFTER_PROMPT") ?? 0,
    loseAcksAfterPrompt: int("GROK_SIM_LOSE_ACKS_AFTER_PROMPT") ?? 0,
    halfCloseAfterPrompt: int("GROK_SIM_HALF_CLOSE_AFTER_PROMPT") ?? 0,
    ackDelayMs: int("GROK_SIM_ACK_DELAY_MS") ?? 0,
    loadDelayMs: int("GROK_SIM_LOAD_DELAY_MS") ?? 0,
    chunkDelayMs: int("GROK_SIM_CHUNK_DELAY_MS") ?? 20,
    log: text("GROK_SIM_LOG"),
    owner: owner.output,
    ownerDelayMs: int("GROK_SIM_OWNER_DELAY_MS") ?? 0,
    corruptActiveSessions: flag("GROK_SIM_CORRUPT_ACTIVE_SESSIONS"),
    skipActiveSessions: flag("GROK_SIM_SKIP_ACTIVE_SESSIONS"),
    tuiExitAfterMs: int("GROK_SIM_TUI_EXIT_AFTER_MS"),
  };
}

/**
 * A release is always out: the simulated channel pointer defaults to the running version with
 * its patch number plus one (a real grok meets a newer build within one release cycle).
 */
function nextPatch(version: string): string {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  return m === null ? version : `${m[1]}.${m[2]}.${Number(m[3]) + 1}`;
}

/**
 * bin/main.rs `env_flag_enabled`: every value enables except the usual falsy spellings (`0`,
 * `false`, `off`, `no`, empty), trimmed and case-insensitive.
 */
export function envFlagEnabled(value: string): boolean {
  return !["", "0", "false", "off", "no"].includes(value.trim().toLowerCase());
}

/** xai-grok-config `env_bool`: true/false spellings, anything else (or unset) is no answer. */
export function envBool(name: string): boolean | undefined {
  const raw = process.env[name];
  if (raw === undefined) return undefined;
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on", "enabled"].includes(v)) return true;
  if (["0", "false", "no", "off", "disabled"].includes(v)) return false;
  return undefined;
}

/** agent/config.rs `env_string`: trimmed, undefined when unset or blank. */
export function envString(name: string): string | undefined {
  const raw = process.env[name];
  if (raw === undefined) return undefined;
  const t = raw.trim();
  return t === "" ? undefined : t;
}

/**
 * xai-grok-home grok_home(): $GROK_HOME verbatim when set and non-empty, else the canonicalized
 * OS home directory + ".grok".
 */
export function grokHome(): string {
  const env = process.env.GROK_HOME;
  if (env !== undefined && env !== "") return env;
  let home = homedir();
  try {
    home = realpathSync(home);
  } catch {
    // dunce::canonicalize failing falls back to the path as given.
  }
  return join(home, ".grok");
}

export const LEADER_SOCKET_ENV = "GROK_LEADER_SOCKET";
export const PROD_RELAY_WS_URL = "wss://code.grok.com/ws/code-agent";
export const PROD_WS_ORIGIN = "https://grok.com";
