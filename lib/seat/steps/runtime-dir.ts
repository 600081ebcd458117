/**
 * Step `runtime_dir`: a fresh private directory (lib/seat/runtime-dir.ts: in a base nobody else
 * can rename it out of, ours, 0700, not a symlink, short enough for the socket path, held open
 * until launch) holding the leader socket and lock, the admission lock and journal, a temporary
 * profile when one is used, and the seat record; and the profile made real (lib/seat/profile.ts).
 * A refused hire removes the directory again, until the TUI lives in it (`launch`); a temporary
 * profile inside it is removed on any refusal.
 */
import { tmpdir } from "node:os";
import { firstFailure } from "../../check.js";
import { lockPathForSocket } from "../../grok/paths.js";
import type { McpBank } from "../bank.js";
import {
  materializeProfile,
  type Profile,
  type ProfileSpec,
  removeTemporaryProfile,
} from "../profile.js";
import {
  type ProfileConfigSpec,
  profileConfigToml,
  type WrittenConfig,
  writeProfileConfig,
} from "../profile-config.js";
import { refuseOnCheck, refuseOnThrow } from "../refusal.js";
import {
  checkHeldDir,
  checkRuntimeBase,
  createRuntimeDir,
  type HeldDir,
  letGoDir,
} from "../runtime-dir.js";
import { hireStep, outcome } from "../step-runner.js";
import type { BankProxy } from "./mcp-bank.js";

export interface RuntimeDirInput {
  /** Where the directory is created (default: the system temp dir). */
  readonly base?: string | undefined;
  readonly profile: ProfileSpec;
  /** What a temporary profile's config.toml configures (the owner's is never written). */
  readonly config?: Omit<ProfileConfigSpec, "bank"> | undefined;
  /** The operator's bank: its projecting proxy is started here, before the TUI exists. */
  readonly bank?: McpBank | null | undefined;
}

export interface Runtime {
  readonly dir: string;
  readonly socketPath: string;
  readonly lockPath: string;
  readonly profile: Profile;
  /** The config.toml written into a temporary profile, or null. */
  readonly config: WrittenConfig | null;
  /** The bank's proxy (closed with the seat, or by a refused hire), or null. */
  readonly bankProxy: BankProxy | null;
  /** The directory's open fd: `launch` re-checks the path against it, then lets it go. */
  readonly held: HeldDir;
}

export const runtimeDir = hireStep("runtime_dir", async (input: RuntimeDirInput, ctx) => {
  const base = await refuseOnThrow(
    {
      step: "runtime_dir",
      code: "RUNTIME_DIR_UNSAFE",
      check: "runtime_dir.base",
      reason: (f) => `the runtime base cannot be resolved: ${f.message}`,
    },
    () => checkRuntimeBase(input.base ?? tmpdir(), ctx.uid),
  );
  if (!base.check.ok) throw refuseOnCheck("runtime_dir", "RUNTIME_DIR_UNSAFE", base.check);
  const created = await refuseOnThrow(
    {
      step: "runtime_dir",
      code: "RUNTIME_DIR_UNSAFE",
      check: "runtime_dir.create",
      reason: (f) => `no private directory could be created: ${f.message}`,
    },
    () => createRuntimeDir(base.parent, ctx.kernel),
  );
  const held = ctx.stack.adopt(created.held, (h) => letGoDir(h, true));
  const dir = created.dir;
  const unsafe = firstFailure(created.checks);
  if (unsafe !== undefined) throw refuseOnCheck("runtime_dir", "RUNTIME_DIR_UNSAFE", unsafe);
  // The login copy goes into this very directory, not into one put in its place.
  const still = checkHeldDir(held);
  if (!still.ok) {
    ctx.stack.release(held);
    letGoDir(held, false);
    throw refuseOnCheck("runtime_dir", "RUNTIME_DIR_UNSAFE", still);
  }
  const made = await refuseOnThrow(
    {
      step: "runtime_dir",
      code: "PROFILE_INVALID",
      check: "profile.materialize",
      reason: (f) => `the profile could not be prepared: ${f.message}`,
    },
    () => materializeProfile(input.profile, dir),
  );
  const profile = made.profile;
  // A refused hire removes a temporary profile (the copied login above all) even once the TUI
  // lives in the runtime directory: a copied login left behind can still spend the owner's
  // refresh token (lib/seat/profile.ts).
  ctx.stack.defer(() => removeTemporaryProfile(profile));
  const bad = firstFailure(made.checks);
  if (bad !== undefined) throw refuseOnCheck("runtime_dir", "PROFILE_INVALID", bad);
  const bank = input.bank ?? null;
  let bankProxy: BankProxy | null = null;
  if (bank !== null) {
    // The MCP SDK is loaded only for a hire with a bank (docs/design/layers.md §3).
    const { startBankProxy } = await import("../../mcp/bank-proxy.js");
    const started = await refuseOnThrow(
      {
        step: "runtime_dir",
        code: "BANK_UNREACHABLE",
        check: "bank.proxy",
        reason: (f) => f.message,
        details: { origin: bank.url.origin },
      },
      () => startBankProxy({ url: bank.url, headers: bank.headers }),
    );
    bankProxy = ctx.stack.adopt(started, (p) => p.close());
  }
  const text =
    profile.kind === "temporary" && input.config !== undefined
      ? profileConfigToml({
          ...input.config,
          bank:
            bankProxy === null || bank === null
              ? null
              : { name: bank.name, url: bankProxy.url.href },
        })
      : null;
  const config =
    text === null
      ? null
      : await refuseOnThrow(
          {
            step: "runtime_dir",
            code: "PROFILE_INVALID",
            check: "profile.config",
            reason: (f) => `the temporary profile's config.toml could not be written: ${f.message}`,
          },
          () => writeProfileConfig(profile.grokHome, text),
        );
  const value: Runtime = {
    dir,
    socketPath: created.socketPath,
    lockPath: lockPathForSocket(created.socketPath),
    profile,
    config,
    bankProxy,
    held,
  };
  return outcome(
    value,
    `private runtime dir ${dir} (0700, ours); GROK_HOME ${profile.grokHome} (${profile.kind})`,
    [...created.checks, ...made.checks],
    {
      dir,
      socketPath: value.socketPath,
      grokHome: profile.grokHome,
      profile: profile.kind,
      config: config === null ? null : { ...config },
      bankProxy: bankProxy === null ? null : bankProxy.url.href,
    },
  );
});
