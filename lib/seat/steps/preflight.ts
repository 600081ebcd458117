/**
 * Step `preflight`: everything that can be checked before a single process is started or a file
 * is created. Platform (darwin | linux), the grok executable (resolved to a canonical path, as the
 * kernel will report it), `grok --version` against the floor (lib/grok/version.ts: the one place
 * the floor is judged), the work cwd, the profile spec, a sandbox request that would turn leader
 * mode off (lib/grok/sandbox.ts: refused by its cause), the skill manifest, which Herdr server we
 * are about to ask for a pane (discovery, then its session descriptor, then that the server, its
 * socket and the socket's directory are ours: `herdr.socket_owner`, `herdr.socket_dir`,
 * `herdr.server_uid`, lib/proof/herdr-trust.ts), and the owner's startup screens the TUI will show
 * before it creates its session (lib/grok/owner-gates.ts: predicted and reported, never answered).
 */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type CheckResult, fail, firstFailure, pass } from "../../check.js";
import { predictConsent } from "../../grok/consent.js";
import { predictFolderTrust, TRUST_FILE } from "../../grok/folder-trust.js";
import { loginFileOf, loginState } from "../../grok/login.js";
import {
  describeGates,
  type OwnerGatePrediction,
  predictOwnerGates,
} from "../../grok/owner-gates.js";
import { resolveGrokExecutable } from "../../grok/paths.js";
import { requestedSandbox } from "../../grok/sandbox.js";
import { readTomlFile, type TomlFile } from "../../grok/toml-file.js";
import { checkVersionFloor, type GrokVersion, probeGrokVersion } from "../../grok/version.js";
import type { HerdrClient } from "../../herdr/client.js";
import { discoverSocket } from "../../herdr/discovery.js";
import { readSessionDescriptor } from "../../observe/herdr-descriptor.js";
import { herdrTrustChecks, trustedHerdrClient } from "../../observe/herdr-trust.js";
import type { SessionDescriptor } from "../../proof/session-descriptor.js";
import { checkBank, type McpBank } from "../bank.js";
import { buildPersona, type Persona, skillsNote } from "../persona.js";
import { checkProfileSpec, type ProfileSpec, trustStoreText } from "../profile.js";
import { refuseOnCheck, refuseOnThrow } from "../refusal.js";
import { buildSkillManifest, type SkillEntry } from "../skills.js";
import { hireStep, outcome } from "../step-runner.js";

export interface PreflightInput {
  /** The grok executable the caller named, or null for `grok` on PATH. */
  readonly grok?: string | undefined;
  readonly cwd: string;
  readonly profile: ProfileSpec;
  readonly skills?: readonly string[] | undefined;
  /** The operator's MCP bank (any value: checked here). */
  readonly mcpBank?: unknown;
  /** The persona text (any value: checked here). */
  readonly persona?: unknown;
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
  /** The operator's MCP bank, or null. */
  readonly bank: McpBank | null;
  /** The persona a fresh launch applies with `--rules`, or null. */
  readonly persona: Persona | null;
  readonly descriptor: SessionDescriptor;
  readonly herdr: HerdrClient;
  /** The owner's startup screens the TUI is expected to show before its session exists. */
  readonly gates: OwnerGatePrediction;
}

/** The profile's config.toml and trust store (a temporary profile has neither, but its list). */
async function profileFiles(
  profile: ProfileSpec,
): Promise<{ config: TomlFile; store: TomlFile | null; configPath: string | null }> {
  if (profile.kind === "grok-home") {
    const home = realpathSync(profile.grokHome);
    const configPath = join(home, "config.toml");
    return {
      config: await readTomlFile(configPath),
      store: await readTomlFile(join(home, TRUST_FILE)),
      configPath,
    };
  }
  const trusted = profile.trustedFolders ?? [];
  const { parse } = await import("smol-toml");
  return {
    config: { status: "missing", path: "config.toml" },
    store:
      trusted.length === 0
        ? null
        : { status: "ok", path: TRUST_FILE, table: parse(trustStoreText(trusted, new Date())) },
    configPath: null,
  };
}

function refuseFirst(checks: readonly CheckResult[], code: string): void {
  const failed = firstFailure(checks);
  if (failed !== undefined) throw refuseOnCheck("preflight", code, failed);
}

function canonicalOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
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

  // A requested sandbox turns leader mode off without a word on the wire: refuse by its cause
  // instead of waiting for a leader that never comes (LEADER_NOT_READY).
  const files = await profileFiles(input.profile);
  const sandbox = requestedSandbox(input.env, files.config);
  checks.push(
    sandbox === null
      ? pass("preflight.sandbox", "no sandbox profile (leader mode on)", null)
      : fail(
          "preflight.sandbox",
          "no sandbox profile (leader mode on)",
          { ...sandbox },
          `${sandbox.source} asks for the sandbox profile "${sandbox.profile}", which turns Grok's leader mode off`,
        ),
  );
  refuseFirst(checks, "SANDBOX_DISABLES_LEADER");

  const skills = buildSkillManifest(input.skills ?? []);
  checks.push(...skills.checks);
  refuseFirst(checks, "SKILL_UNREADABLE");

  const bank = checkBank(input.mcpBank);
  checks.push(...bank.checks);
  refuseFirst(checks, "BANK_INVALID");

  // With the owner's own profile the skills cannot be configured (its config is never written):
  // the persona says where they are (persona.ts `skillsNote`).
  const note =
    input.profile.kind === "grok-home" && skills.manifest.length > 0
      ? skillsNote(skills.manifest)
      : null;
  const persona = buildPersona(input.persona, note);
  checks.push(...persona.checks);
  refuseFirst(checks, "PERSONA_INVALID");

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
  const realCwd = cwd.real ?? input.cwd;
  const home = input.env.HOME !== undefined && input.env.HOME !== "" ? input.env.HOME : homedir();
  const gates = predictOwnerGates(
    await loginState(
      input.profile.kind === "grok-home"
        ? loginFileOf(realpathSync(input.profile.grokHome))
        : input.profile.loginFile,
      input.env,
    ),
    await predictFolderTrust({
      cwd: realCwd,
      home: canonicalOrNull(home),
      env: input.env,
      config: files.config,
      store: files.store,
      userConfigPath: files.configPath,
    }),
    // A temporary profile records no consent answers; the profile its login came from may.
    predictConsent(
      input.profile.kind === "temporary"
        ? await readTomlFile(join(dirname(input.profile.loginFile), "config.toml"))
        : null,
    ),
  );
  const value: Preflight = {
    platform: os,
    grokExecutable,
    cliVersion,
    cwd: realCwd,
    skills: skills.manifest,
    persona: persona.persona,
    bank: bank.bank,
    descriptor,
    herdr,
    gates,
  };
  return outcome(
    value,
    `${os}; ${cliVersion.line} at ${grokExecutable}; Herdr ${descriptor.version} at ${descriptor.socketPath}; ${describeGates(gates)}`,
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
      persona:
        value.persona === null
          ? null
          : { sha256: value.persona.sha256, bytes: value.persona.bytes },
      ownerGates: {
        expected: [...gates.expected],
        signIn: gates.signIn,
        consent: gates.consent,
        folderTrust: {
          outcome: gates.folderTrust.outcome,
          why: gates.folderTrust.why,
          workspace: gates.folderTrust.workspace,
          kinds: [...gates.folderTrust.kinds],
        },
      },
    },
  );
});
