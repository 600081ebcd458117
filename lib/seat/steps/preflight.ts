/**
 * Step `preflight`: everything that can be checked before a single process is started or a file
 * is created. Platform (darwin | linux), the grok executable (resolved to a canonical path, as the
 * kernel will report it), `grok --version` against the floor (lib/grok/version.ts: the one place
 * the floor is judged), the work cwd, the profile spec, the skill manifest, and which Herdr
 * server we are about to ask for a pane (discovery, then its session descriptor, then that the
 * server, its socket and the socket's directory are ours: `herdr.socket_owner`, `herdr.socket_dir`,
 * `herdr.server_uid`, lib/proof/herdr-trust.ts).
 */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { type CheckResult, fail, firstFailure, pass } from "../../check.js";
import { resolveGrokExecutable } from "../../grok/paths.js";
import { checkVersionFloor, type GrokVersion, probeGrokVersion } from "../../grok/version.js";
import type { HerdrClient } from "../../herdr/client.js";
import { discoverSocket } from "../../herdr/discovery.js";
import { readSessionDescriptor } from "../../observe/herdr-descriptor.js";
import { herdrTrustChecks, trustedHerdrClient } from "../../observe/herdr-trust.js";
import type { SessionDescriptor } from "../../proof/session-descriptor.js";
import { checkProfileSpec, type ProfileSpec } from "../profile.js";
import { refuseOnCheck, refuseOnThrow } from "../refusal.js";
import { buildSkillManifest, type SkillEntry } from "../skills.js";
import { hireStep, outcome } from "../step-runner.js";

export interface PreflightInput {
  /** The grok executable the caller named, or null for `grok` on PATH. */
  readonly grok?: string | undefined;
  readonly cwd: string;
  readonly profile: ProfileSpec;
  readonly skills?: readonly string[] | undefined;
  /** Our environment with the caller's extra variables (what the TUI will get). */
  readonly env: NodeJS.ProcessEnv;
  /** Which Herdr server: an explicit socket path or session name, else discovery. */
  readonly herdr?:
    | {
        readonly socketPath?: string | undefined;
        readonly sessionName?: string | undefined;
        readonly timeoutMs?: number | undefined;
      }
    | undefined;
}

export interface Preflight {
  readonly platform: "darwin" | "linux";
  readonly grokExecutable: string;
  readonly cliVersion: GrokVersion;
  readonly cwd: string;
  readonly skills: readonly SkillEntry[];
  readonly descriptor: SessionDescriptor;
  readonly herdr: HerdrClient;
}

function refuseFirst(checks: readonly CheckResult[], code: string): void {
  const failed = firstFailure(checks);
  if (failed !== undefined) throw refuseOnCheck("preflight", code, failed);
}

function cwdCheck(cwd: string): { check: CheckResult; real: string | null } {
  try {
    const real = realpathSync(cwd);
    if (!statSync(real).isDirectory()) throw new Error("not a directory");
    accessSync(real, constants.R_OK | constants.X_OK);
    return { check: pass("preflight.cwd", "an existing directory", real), real };
  } catch {
    const why = `${cwd} is not a directory we can enter`;
    return { check: fail("preflight.cwd", "an existing directory", cwd, why), real: null };
  }
}

export const preflight = hireStep("preflight", async (input: PreflightInput, ctx) => {
  // Which Herdr server first: a name that cannot be a session refuses before anything else.
  const where = input.herdr;
  const found = await refuseOnThrow(
    {
      step: "preflight",
      code: "HERDR_UNREACHABLE",
      check: "herdr.discovery",
      reason: (f) => f.message,
    },
    () =>
      discoverSocket({
        explicitPath: where?.socketPath,
        explicitSession: where?.sessionName,
        env: process.env,
        tmpdir: tmpdir(),
        cwd: process.cwd(),
      }),
  );
  // Gated: every request but `ping` first proves the server is ours (lib/observe/herdr-trust.ts).
  const herdr = trustedHerdrClient(
    {
      socketPath: found.socketPath,
      ...(where?.timeoutMs === undefined ? {} : { timeoutMs: where.timeoutMs }),
    },
    ctx.kernel,
    ctx.uid,
  );
  const checks: CheckResult[] = [];
  const platform = process.platform;
  checks.push(
    platform === "linux" || platform === "darwin"
      ? pass("preflight.platform", "darwin | linux", platform)
      : fail(
          "preflight.platform",
          "darwin | linux",
          platform,
          `grok-seat does not run on ${platform}`,
        ),
  );
  refuseFirst(checks, "PLATFORM_UNSUPPORTED");
  const os = platform === "darwin" ? "darwin" : "linux";

  // An explicit GROK_HOME decides the version's channel label, as it will for the TUI.
  const env =
    input.profile.kind === "grok-home"
      ? { ...input.env, GROK_HOME: input.profile.grokHome }
      : input.env;
  const wanted = input.grok ?? null;
  const grokExecutable = resolveGrokExecutable(wanted, env);
  checks.push(
    grokExecutable === null
      ? fail(
          "preflight.grok_executable",
          wanted ?? "grok on PATH",
          null,
          wanted === null ? "no executable grok on PATH" : `${wanted} is not an executable file`,
        )
      : pass("preflight.grok_executable", wanted ?? "grok on PATH", grokExecutable),
  );
  refuseFirst(checks, "GROK_NOT_FOUND");
  if (grokExecutable === null) throw new Error("unreachable");

  const cliVersion = await refuseOnThrow(
    {
      step: "preflight",
      code: "GROK_VERSION_UNREADABLE",
      check: "version.probe",
      reason: (f) => `${f.code}: ${f.message}`,
      details: { executable: grokExecutable },
    },
    () => probeGrokVersion(grokExecutable, { env }),
  );
  checks.push(
    pass("version.probe", "grok --version", cliVersion.line),
    checkVersionFloor(cliVersion),
  );
  refuseFirst(checks, "VERSION_BELOW_FLOOR");

  const cwd = cwdCheck(input.cwd);
  checks.push(cwd.check);
  refuseFirst(checks, "CWD_INVALID");

  checks.push(...checkProfileSpec(input.profile));
  refuseFirst(checks, "PROFILE_INVALID");

  const skills = buildSkillManifest(input.skills ?? []);
  checks.push(...skills.checks);
  refuseFirst(checks, "SKILL_UNREADABLE");

  const descriptor = await refuseOnThrow(
    {
      step: "preflight",
      code: "HERDR_UNREACHABLE",
      check: "herdr.descriptor",
      reason: (f) =>
        `the Herdr socket ${herdr.socketPath} does not answer: ${f.code}: ${f.message}`,
      details: { socketPath: herdr.socketPath },
    },
    () => readSessionDescriptor(herdr, ctx.kernel, found.sessionName),
  );
  checks.push(
    pass("herdr.descriptor", "a Herdr server answering ping", {
      socketPath: descriptor.socketPath,
      version: descriptor.version,
      serverPid: descriptor.server.pid,
    }),
  );
  // Before any request but `ping`: the socket, its directory and the server are ours. A request
  // carries the TUI's env, cwd and socket path; another user's server must get none of it.
  checks.push(...herdrTrustChecks(descriptor, ctx.uid));
  refuseFirst(checks, "HERDR_UNTRUSTED");
  const value: Preflight = {
    platform: os,
    grokExecutable,
    cliVersion,
    cwd: cwd.real ?? input.cwd,
    skills: skills.manifest,
    descriptor,
    herdr,
  };
  return outcome(
    value,
    `${os}; ${cliVersion.line} at ${grokExecutable}; Herdr ${descriptor.version} at ${descriptor.socketPath}`,
    checks,
    {
      platform: os,
      grok: grokExecutable,
      version: cliVersion.version,
      cwd: value.cwd,
      herdr: {
        socketPath: descriptor.socketPath,
        version: descriptor.version,
        serverPid: descriptor.server.pid,
      },
      skills: value.skills.length,
    },
  );
});
