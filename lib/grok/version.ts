/**
 * The Grok Build version floor (ADR 0224 (docs/design/adr-0224.md) and its amendment of 2026-10-17): `grok --version`
 * is 1.0.46 or newer, and the leader and its agent report that same version at leader protocol 1
 * with `control_v1`. A seat admits it in three stages (`checkVersionFloor`, `admitLeaderVersion`,
 * `admitAgentVersion`); what the floor stands for and how `grok --version` reads:
 * docs/design/decisions.md §6.
 */

import { isUtf8 } from "node:buffer";
import { type ExecFileException, execFile } from "node:child_process";
import { type CheckResult, expectEqual, fail, pass } from "../check.js";
import type { Registered } from "../leader/messages.js";
import { LEADER_PROTOCOL_VERSION } from "../leader/messages.js";
import { GrokError, type GrokErrorCode } from "./grok-error.js";
import { VERSION_FLOOR } from "./version-floor.js";

export { VERSION_FLOOR } from "./version-floor.js";

// ---- Semantic versions as Grok uses them (`semver` crate in `xai-grok-version`):
// MAJOR.MINOR.PATCH with optional `-prerelease` and `+build`, ordered by semver 2.0.0 precedence (a
// prerelease sorts before its release; build metadata is ignored).

export interface SemVer {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly prerelease: readonly (string | number)[];
  readonly build: readonly string[];
  /** The text it was parsed from. */
  readonly text: string;
}

// semver.org's recommended pattern (numeric identifiers without leading zeros).
const NUM = "0|[1-9]\\d*";
const PRE_ID = `${NUM}|\\d*[a-zA-Z-][0-9a-zA-Z-]*`;
const SEMVER = new RegExp(
  `^(${NUM})\\.(${NUM})\\.(${NUM})` +
    `(?:-((?:${PRE_ID})(?:\\.(?:${PRE_ID}))*))?` +
    "(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$",
);

export function parseSemver(text: string): SemVer | null {
  const m = SEMVER.exec(text);
  if (!m) return null;
  const nums = [m[1], m[2], m[3]].map(Number);
  if (!nums.every(Number.isSafeInteger)) return null;
  const prerelease = (m[4]?.split(".") ?? []).map((id) => (/^\d+$/.test(id) ? Number(id) : id));
  if (prerelease.some((id) => typeof id === "number" && !Number.isSafeInteger(id))) return null;
  return {
    major: nums[0] as number,
    minor: nums[1] as number,
    patch: nums[2] as number,
    prerelease,
    build: m[5]?.split(".") ?? [],
    text,
  };
}

/** -1, 0 or 1 by semver precedence. */
export function compareSemver(a: SemVer, b: SemVer): -1 | 0 | 1 {
  for (const k of ["major", "minor", "patch"] as const) {
    if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  }
  const pa = a.prerelease;
  const pb = b.prerelease;
  if (pa.length === 0 || pb.length === 0) {
    if (pa.length === pb.length) return 0;
    return pa.length === 0 ? 1 : -1; // a release outranks its prereleases
  }
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i] as string | number;
    const y = pb[i] as string | number;
    if (x === y) continue;
    if (typeof x === "number" && typeof y === "number") return x < y ? -1 : 1;
    if (typeof x === "number") return -1; // numeric identifiers sort before alphanumeric ones
    if (typeof y === "number") return 1;
    return x < y ? -1 : 1;
  }
  if (pa.length === pb.length) return 0;
  return pa.length < pb.length ? -1 : 1;
}

const FLOOR: SemVer = parseSemver(VERSION_FLOOR) ?? {
  major: 1,
  minor: 0,
  patch: 46,
  prerelease: [],
  build: [],
  text: VERSION_FLOOR,
};

export interface GrokVersion {
  /** The semver text, e.g. "1.0.48" or "0.1.220-alpha.2". */
  readonly version: string;
  readonly semver: SemVer;
  /** Short commit as printed ("b94d5072c95f", "unknown"), or null when none was printed. */
  readonly commit: string | null;
  readonly channel: "alpha" | "stable" | null;
  /** The whole line as printed, without the newline. */
  readonly line: string;
}

const LINE = /^grok (\S+?)(?: \(([0-9A-Za-z]+)\))?(?: \[(alpha|stable)\])?$/;

/** Parse `grok --version` stdout. Throws GROK_VERSION_UNPARSEABLE for anything else. */
export function parseGrokVersion(stdout: string): GrokVersion {
  const line = stdout.endsWith("\n") ? stdout.slice(0, -1) : stdout;
  const m = line.includes("\n") ? null : LINE.exec(line);
  const semver = m?.[1] ? parseSemver(m[1]) : null;
  if (!m || !semver) {
    throw new GrokError("GROK_VERSION_UNPARSEABLE", "grok --version printed an unrecognised line", {
      details: { output: stdout.slice(0, 200) },
    });
  }
  const channel = m[3] === "alpha" || m[3] === "stable" ? m[3] : null;
  return { version: semver.text, semver, commit: m[2] ?? null, channel, line };
}

export interface ProbeOptions {
  readonly timeoutMs?: number;
  readonly maxOutputBytes?: number;
  /** Environment for the child (GROK_HOME decides the channel label); default: ours. */
  readonly env?: NodeJS.ProcessEnv;
}

/** Run `<executable> --version` (no shell, bounded in time and output) and parse it. */
export function probeGrokVersion(
  executable: string,
  options: ProbeOptions = {},
): Promise<GrokVersion> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const maxOutputBytes = options.maxOutputBytes ?? 4_096;
  return new Promise((resolve, reject) => {
    execFile(
      executable,
      ["--version"],
      {
        encoding: "buffer",
        shell: false,
        timeout: timeoutMs,
        killSignal: "SIGKILL",
        maxBuffer: maxOutputBytes,
        env: options.env ?? process.env,
        windowsHide: true,
      },
      (error, stdout) => {
        if (error) return reject(probeError(error, executable, timeoutMs, maxOutputBytes));
        if (!isUtf8(stdout)) {
          return reject(
            new GrokError("GROK_VERSION_UNPARSEABLE", "grok --version output is not UTF-8", {
              details: { executable },
            }),
          );
        }
        try {
          resolve(parseGrokVersion(stdout.toString("utf8")));
        } catch (err) {
          reject(err);
        }
      },
    );
  });
}

function probeError(
  error: ExecFileException,
  executable: string,
  timeoutMs: number,
  maxOutputBytes: number,
): GrokError {
  const [code, message]: [GrokErrorCode, string] =
    error.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER"
      ? ["GROK_VERSION_OUTPUT_TOO_LARGE", `grok --version printed over ${maxOutputBytes} bytes`]
      : error.killed && error.signal === "SIGKILL"
        ? ["GROK_VERSION_TIMEOUT", `grok --version took over ${timeoutMs} ms`]
        : error.code === "ENOENT" || error.code === "EACCES"
          ? ["GROK_NOT_FOUND", `cannot run ${executable}: ${error.code}`]
          : ["GROK_VERSION_FAILED", `grok --version failed: ${error.message}`];
  return new GrokError(code, message, {
    details: {
      executable,
      timeoutMs,
      maxOutputBytes,
      exitCode: typeof error.code === "number" ? error.code : null,
    },
    cause: error,
  });
}

/** `grok --version` at or above the floor: `version.floor`. The one place the floor is judged. */
export function checkVersionFloor(cli: GrokVersion): CheckResult {
  return compareSemver(cli.semver, FLOOR) >= 0
    ? pass("version.floor", `>=${VERSION_FLOOR}`, cli.version)
    : fail(
        "version.floor",
        `>=${VERSION_FLOOR}`,
        cli.version,
        `grok ${cli.version} is older than the floor ${VERSION_FLOOR}`,
      );
}

/** The leader's `registered` metadata as the version checks read it. */
export type LeaderVersionReport = Pick<
  Registered,
  "leader_protocol_version" | "leader_binary_version" | "leader_capabilities"
>;

/**
 * The leader's half: protocol 1 (`version.leader_protocol`), `control_v1`
 * (`version.leader_control_v1`) and the same version as `grok --version`
 * (`version.leader_agrees`). Each refusal names the versions found and what is missing.
 */
export function admitLeaderVersion(cli: GrokVersion, reg: LeaderVersionReport): CheckResult[] {
  return [
    expectEqual(
      "version.leader_protocol",
      LEADER_PROTOCOL_VERSION,
      reg.leader_protocol_version,
      reg.leader_protocol_version === null
        ? "the leader does not report a protocol version (a legacy leader)"
        : `the leader speaks protocol ${reg.leader_protocol_version}, not ${LEADER_PROTOCOL_VERSION}`,
    ),
    expectEqual(
      "version.leader_control_v1",
      true,
      reg.leader_capabilities?.control_v1 ?? null,
      reg.leader_capabilities === null
        ? "the leader advertises no capabilities, so no control_v1"
        : "the leader does not advertise control_v1",
    ),
    expectEqual(
      "version.leader_agrees",
      cli.version,
      reg.leader_binary_version,
      `grok --version reports ${cli.version} but the leader reports ${reg.leader_binary_version ?? "no version"}`,
    ),
  ];
}

/** The agent's half: `initialize._meta.agentVersion` is the version of `grok --version`. */
export function admitAgentVersion(cli: GrokVersion, agentVersion: string | null): CheckResult {
  return expectEqual(
    "version.agent_agrees",
    cli.version,
    agentVersion,
    `grok --version reports ${cli.version} but the agent reports ${agentVersion ?? "no agentVersion"}`,
  );
}

/** Every version report at once (the floor, the leader's and, with `agent`, the agent's). */
export interface VersionReports {
  /** Parsed `grok --version` of the resolved grok executable. */
  readonly cli: GrokVersion;
  /** The leader's `registered` metadata. */
  readonly leaderRegistered: LeaderVersionReport;
  /** ACP `initialize` -> `_meta.agentVersion`, when the ACP layer has it. */
  readonly agent?: { readonly agentVersion: string | null };
}

/**
 * The version floor as named checks: `version.floor`, `version.leader_protocol`,
 * `version.leader_control_v1`, `version.leader_agrees` and, with `agent`, `version.agent_agrees`.
 * A seat admits them one stage at a time (preflight, register, versions); this is all of them.
 */
export function admitVersion(reports: VersionReports): CheckResult[] {
  const { cli, leaderRegistered, agent } = reports;
  return [
    checkVersionFloor(cli),
    ...admitLeaderVersion(cli, leaderRegistered),
    ...(agent === undefined ? [] : [admitAgentVersion(cli, agent.agentVersion)]),
  ];
}
