/**
 * Preflight: everything that can be checked before a single process is started or a file is
 * created. Platform (darwin | linux), the grok executable (resolved to a canonical path, as the
 * kernel will report it), `grok --version` against the floor (lib/grok/version.ts), the profile
 * spec, the work cwd, the skill manifest, and the Herdr session descriptor (which server we are
 * about to ask for a pane).
 */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { type CheckResult, fail, firstFailure, pass } from "../check.js";
import { GrokSeatError } from "../errors.js";
import { resolveGrokExecutable } from "../grok/paths.js";
import {
  compareSemver,
  type GrokVersion,
  parseSemver,
  probeGrokVersion,
  VERSION_FLOOR,
} from "../grok/version.js";
import type { HerdrClient } from "../herdr/client.js";
import type { SessionDescriptor } from "../herdr/descriptor.js";
import type { KernelPort } from "../kernel/index.js";
import { readSessionDescriptor } from "../observe/herdr-descriptor.js";
import { checkProfileSpec, type ProfileSpec } from "./profile.js";
import { refuseOnCheck, SeatRefusal } from "./refusal.js";
import { buildSkillManifest, type SkillEntry } from "./skills.js";

export interface PreflightInput {
  readonly grok: string | null;
  readonly cwd: string;
  readonly profile: ProfileSpec;
  readonly skills: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly herdr: HerdrClient;
  readonly herdrSessionName: string | null;
  readonly kernel: KernelPort;
}

export interface Preflight {
  readonly platform: "darwin" | "linux";
  readonly grokExecutable: string;
  readonly cliVersion: GrokVersion;
  readonly cwd: string;
  readonly skills: readonly SkillEntry[];
  readonly descriptor: SessionDescriptor;
  readonly checks: readonly CheckResult[];
}

const FLOOR = parseSemver(VERSION_FLOOR);

function refuseFirst(checks: readonly CheckResult[], code: string): void {
  const failed = firstFailure(checks);
  if (failed !== undefined) throw refuseOnCheck("preflight", code, failed);
}

export async function preflight(input: PreflightInput): Promise<Preflight> {
  const checks: CheckResult[] = [];
  const platform = process.platform;
  const platformCheck =
    platform === "linux" || platform === "darwin"
      ? pass("preflight.platform", "darwin | linux", platform)
      : fail(
          "preflight.platform",
          "darwin | linux",
          platform,
          `grok-seat does not run on ${platform}`,
        );
  checks.push(platformCheck);
  refuseFirst(checks, "PLATFORM_UNSUPPORTED");
  const os = platform === "darwin" ? "darwin" : "linux";

  const grokExecutable = resolveGrokExecutable(input.grok, input.env);
  checks.push(
    grokExecutable === null
      ? fail(
          "preflight.grok_executable",
          input.grok ?? "grok on PATH",
          null,
          input.grok === null
            ? "no executable grok on PATH"
            : `${input.grok} is not an executable file`,
        )
      : pass("preflight.grok_executable", input.grok ?? "grok on PATH", grokExecutable),
  );
  refuseFirst(checks, "GROK_NOT_FOUND");
  if (grokExecutable === null) throw new Error("unreachable");

  let cliVersion: GrokVersion;
  try {
    cliVersion = await probeGrokVersion(grokExecutable, { env: input.env });
  } catch (err) {
    if (!(err instanceof GrokSeatError)) throw err;
    throw new SeatRefusal({
      step: "preflight",
      code: "GROK_VERSION_UNREADABLE",
      check: "version.probe",
      reason: `${err.code}: ${err.message}`,
      details: { executable: grokExecutable },
      cause: err,
    });
  }
  checks.push(pass("version.probe", "grok --version", cliVersion.line));
  checks.push(
    FLOOR !== null && compareSemver(cliVersion.semver, FLOOR) >= 0
      ? pass("version.floor", `>=${VERSION_FLOOR}`, cliVersion.version)
      : fail(
          "version.floor",
          `>=${VERSION_FLOOR}`,
          cliVersion.version,
          `grok ${cliVersion.version} is older than the floor ${VERSION_FLOOR}`,
        ),
  );
  refuseFirst(checks, "VERSION_BELOW_FLOOR");

  let cwd: string | null = null;
  try {
    cwd = realpathSync(input.cwd);
    if (!statSync(cwd).isDirectory()) throw new Error("not a directory");
    accessSync(cwd, constants.R_OK | constants.X_OK);
    checks.push(pass("preflight.cwd", "an existing directory", cwd));
  } catch {
    checks.push(
      fail(
        "preflight.cwd",
        "an existing directory",
        input.cwd,
        `${input.cwd} is not a directory we can enter`,
      ),
    );
  }
  refuseFirst(checks, "CWD_INVALID");

  checks.push(...checkProfileSpec(input.profile));
  refuseFirst(checks, "PROFILE_INVALID");

  const skills = buildSkillManifest(input.skills);
  checks.push(...skills.checks);
  refuseFirst(checks, "SKILL_UNREADABLE");

  let descriptor: SessionDescriptor;
  try {
    descriptor = await readSessionDescriptor(input.herdr, input.kernel, input.herdrSessionName);
  } catch (err) {
    if (!(err instanceof GrokSeatError)) throw err;
    throw new SeatRefusal({
      step: "preflight",
      code: "HERDR_UNREACHABLE",
      check: "herdr.descriptor",
      reason: `the Herdr socket ${input.herdr.socketPath} does not answer: ${err.code}: ${err.message}`,
      details: { socketPath: input.herdr.socketPath },
      cause: err,
    });
  }
  checks.push(
    pass("herdr.descriptor", "a Herdr server answering ping", {
      socketPath: descriptor.socketPath,
      version: descriptor.version,
      serverPid: descriptor.server.pid,
    }),
  );
  return {
    platform: os,
    grokExecutable,
    cliVersion,
    cwd: cwd ?? input.cwd,
    skills: skills.manifest,
    descriptor,
    checks,
  };
}
