/**
 * `grok --version` and `grok version --json` (bin/main.rs version_text; xai-grok-update
 * version.rs channel_label / channel_name): the channel comes from `stable_version` cached in
 * `$GROK_HOME/version.json` — newer than stable is alpha, otherwise stable, unknown without a
 * cache.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { grokHome, type SimEnv } from "./env.js";
import { field, parseJson, str } from "./json.js";
import { leaderIsOlderThan } from "./leader/routing.js";

/** semver `current > stable` (derive_channel); undefined when either does not parse. */
function greater(a: string, b: string): boolean | undefined {
  if (!SEMVER.test(a) || !SEMVER.test(b)) return undefined;
  return leaderIsOlderThan(b, a);
}

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

export function channelName(version: string): "alpha" | "stable" | undefined {
  let stable: string | undefined;
  try {
    stable = str(
      field(parseJson(readFileSync(join(grokHome(), "version.json"), "utf8")), "stable_version"),
    );
  } catch {
    return undefined;
  }
  if (stable === undefined) return undefined;
  const newer = greater(version, stable);
  if (newer === undefined) return undefined;
  return newer ? "alpha" : "stable";
}

export function versionWithCommit(env: SimEnv): string {
  return `${env.version} (${env.commit})`;
}

export function versionText(env: SimEnv): string {
  const channel = channelName(env.version);
  const label = channel === undefined ? "" : ` [${channel}]`;
  return `grok ${versionWithCommit(env)}${label}\n`;
}

export function versionJson(env: SimEnv): string {
  return `${JSON.stringify({ currentVersion: versionWithCommit(env), channel: channelName(env.version) ?? "unknown" })}\n`;
}
