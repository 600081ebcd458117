/**
 * Step `runtime_dir`: a fresh private directory (lib/seat/runtime-dir.ts: in a base nobody else
 * can rename it out of, ours, 0700, not a symlink, short enough for the socket path, held open
 * until launch) holding the leader socket and lock, the admission lock and journal, a temporary
 * profile when one is used, and the seat record; and the profile made real (lib/seat/profile.ts).
 * A refused hire removes the directory again, until the TUI lives in it (`launch`).
 */
import { tmpdir } from "node:os";
import { firstFailure } from "../../check.js";
import { lockPathForSocket } from "../../grok/paths.js";
import { materializeProfile, type Profile, type ProfileSpec } from "../profile.js";
import { refuseOnCheck, refuseOnThrow } from "../refusal.js";
import {
  checkHeldDir,
  checkRuntimeBase,
  createRuntimeDir,
  type HeldDir,
  letGoDir,
} from "../runtime-dir.js";
import { hireStep, outcome } from "../step-runner.js";

export interface RuntimeDirInput {
  /** Where the directory is created (default: the system temp dir). */
  readonly base?: string | undefined;
  readonly profile: ProfileSpec;
}

export interface Runtime {
  readonly dir: string;
  readonly socketPath: string;
  readonly lockPath: string;
  readonly profile: Profile;
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
  const bad = firstFailure(made.checks);
  if (bad !== undefined) throw refuseOnCheck("runtime_dir", "PROFILE_INVALID", bad);
  const profile = made.profile;
  const value: Runtime = {
    dir,
    socketPath: created.socketPath,
    lockPath: lockPathForSocket(created.socketPath),
    profile,
    held,
  };
  return outcome(
    value,
    `private runtime dir ${dir} (0700, ours); GROK_HOME ${profile.grokHome} (${profile.kind})`,
    [...created.checks, ...made.checks],
    { dir, socketPath: value.socketPath, grokHome: profile.grokHome, profile: profile.kind },
  );
});
