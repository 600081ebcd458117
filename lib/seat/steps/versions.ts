/**
 * Step `versions`: one Grok Build version. The floor was admitted in `preflight` and the leader's
 * half in `register`; here the agent's `initialize._meta.agentVersion` must be the version of
 * `grok --version` too, at ACP protocol 1 (lib/grok/version.ts `admitAgentVersion`), before the
 * owner's session is looked at.
 */

import type { InitializeFacts } from "../../acp/handshake.js";
import { expectEqual, firstFailure } from "../../check.js";
import { admitAgentVersion, type GrokVersion } from "../../grok/version.js";
import type { Registered } from "../../leader/messages.js";
import { refuseOnCheck } from "../refusal.js";
import { hireStep, outcome } from "../step-runner.js";

export interface VersionsInput {
  readonly cli: GrokVersion;
  readonly registered: Registered;
  readonly init: InitializeFacts;
}

export const versions = hireStep("versions", (input: VersionsInput) => {
  const { cli, registered, init } = input;
  const checks = [
    admitAgentVersion(cli, init.agentVersion),
    expectEqual("version.acp_protocol", 1, init.protocolVersion, "ACP protocol is not 1"),
  ];
  const failed = firstFailure(checks);
  if (failed !== undefined) throw refuseOnCheck("versions", "VERSION_MISMATCH", failed);
  return outcome(
    null,
    `one version: grok --version ${cli.version} = leader ${registered.leader_binary_version ?? "?"} = agent ${init.agentVersion ?? "?"}`,
    checks,
    { cli: cli.version, leader: registered.leader_binary_version, agent: init.agentVersion },
  );
});
