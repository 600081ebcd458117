/**
 * Entry point of the simulated `grok` executable (bundled into a Node single-executable app by
 * test/sim/build.ts). Dispatch follows bin/main.rs: version flags first, then subcommands, then
 * the TUI. `grok agent stdio|headless|serve` exist in the real program but are refused here:
 * grok-seat must never start a standalone agent.
 */
import { mkdirSync } from "node:fs";
import { collectCrashed } from "./active-sessions.js";
import { parseCli } from "./cli.js";
import { leaderInfo, leaderList } from "./discover.js";
import { grokHome, readSimEnv } from "./env.js";
import { runImposter } from "./leader/imposter.js";
import { runLeader } from "./leader/main.js";
import { anchorToLaunchDir } from "./paths.js";
import { initTrace } from "./trace.js";
import { runTui } from "./tui/main.js";
import { runUpdateCommand } from "./update.js";
import { versionJson, versionText } from "./version.js";

async function main(argv: string[]): Promise<void> {
  const { intent, leaderSocket } = parseCli(argv);
  let env: ReturnType<typeof readSimEnv>;
  try {
    env = readSimEnv();
  } catch (err) {
    process.stderr.write(`grok simulator: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
  switch (intent.kind) {
    case "version":
      process.stdout.write(versionText(env));
      return;
    case "version_cmd":
      process.stdout.write(intent.json ? versionJson(env) : versionText(env));
      return;
    case "usage_error":
      process.stderr.write(intent.message);
      process.exit(2);
      return;
    case "runtime_error":
      process.stderr.write(intent.message);
      process.exit(1);
      return;
    case "agent_refused":
      process.stderr.write(
        `grok simulator: \`grok agent ${intent.mode}\` is not simulated (grok-seat must never start a standalone agent)\n`,
      );
      process.exit(2);
      return;
    default:
      break;
  }
  if (leaderSocket !== undefined && intent.kind !== "tui") {
    process.env.GROK_LEADER_SOCKET = anchorToLaunchDir(leaderSocket, process.cwd());
  }
  try {
    mkdirSync(grokHome(), { recursive: true });
  } catch {
    // grok_home() only warns when it cannot create the directory.
  }
  if (intent.kind !== "imposter") {
    try {
      collectCrashed(grokHome());
    } catch {
      // collect_crashed().unwrap_or_default(): never fatal.
    }
  }
  switch (intent.kind) {
    case "leader_list":
      process.exit(await leaderList(intent.json));
      return;
    case "leader_info":
      process.exit(await leaderInfo(intent.json, intent.pid));
      return;
    case "update":
      initTrace(env.log, "update");
      process.exit(runUpdateCommand(env.version, env));
      return;
    case "leader_kill":
      process.stderr.write("grok simulator: `grok leader kill` is not simulated\n");
      process.exit(2);
      return;
    case "agent_leader": {
      initTrace(env.log, "leader");
      await runLeader(intent.args, env);
      return;
    }
    case "imposter": {
      initTrace(env.log, "imposter");
      await runImposter(intent.socketPath, intent.leaderPid, env);
      return;
    }
    case "tui": {
      initTrace(env.log, "tui");
      await runTui(intent.args, leaderSocket, env);
      return;
    }
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(
    `Error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
