/**
 * `verify-proof socket <path> --leader`: after the private-socket proof, connect once, prove the
 * peer before a byte is written (lib/leader/connect-proven.ts, as `hire()` does), register, ask
 * `get_leader_info` and print the leader proof (lib/proof/leader.ts) beside the socket checks.
 * Prove before you control: a socket that failed its own proof is not connected to, and a peer
 * that is not a listener of the proven file (a path swapped in between), another uid, a process
 * the kernel cannot name or not the TUI's child is not registered with; its `connect.*` checks
 * and a failed `leader.connect` say why. `--tui-pid` binds the leader to the TUI that spawned it
 * (`leader.cwd`, `leader.ppid`); without it those two checks fail, since nothing ties the leader to
 * a TUI. `--grok` names the grok executable; by default it is the TUI's executable, else `grok` on
 * PATH.
 *
 * JSON: `facts.leader` = { registered, leaderInfo, peer: { pid, uid, identity }, tui,
 * grokExecutable }, the leader checks follow the socket checks in `checks`.
 */
import { resolve } from "node:path";
import { type CheckResult, fail } from "../../check.js";
import { GrokSeatError, UsageError } from "../../errors.js";
import { resolveGrokExecutable } from "../../grok/paths.js";
import type { JsonValue } from "../../json.js";
import { identityJson, readProcess, type SocketFacts, systemKernel } from "../../kernel/index.js";
import { connectProven } from "../../leader/connect-proven.js";
import type { LeaderInfo } from "../../leader/control.js";
import { connectLeader, type LeaderConnection } from "../../leader/leader-connection.js";
import type { Registered } from "../../leader/messages.js";
import { proveLeader } from "../../observe/leader-proof.js";
import type { BoundTui } from "../../proof/leader.js";
import type { CommandInput, FlagSpec, Progress, Report } from "../command.js";

export const socketLeaderFlags: Readonly<Record<string, FlagSpec>> = {
  leader: {
    type: "boolean",
    description: "also connect, register, ask get_leader_info and prove the leader",
  },
  "tui-pid": {
    type: "string",
    description: "with --leader: pid of the TUI that spawned the leader (binds cwd and ppid)",
  },
  grok: {
    type: "string",
    description: "with --leader: the grok executable (default: the TUI's, else grok on PATH)",
  },
};

function registeredJson(r: Registered): JsonValue {
  const caps = r.leader_capabilities;
  return {
    client_id: r.client_id,
    ready: r.ready,
    leader_protocol_version: r.leader_protocol_version,
    leader_binary_version: r.leader_binary_version,
    leader_capabilities:
      caps === null
        ? null
        : {
            control_v1: caps.control_v1,
            runtime_cpu_profile: caps.runtime_cpu_profile,
            profile_formats: [...caps.profile_formats],
            workspace_exposure: caps.workspace_exposure,
            relaunch_v1: caps.relaunch_v1,
          },
  };
}

function leaderInfoJson(i: LeaderInfo): JsonValue {
  return {
    pid: i.pid,
    socket_path: i.socket_path,
    lock_path: i.lock_path,
    ws_url_suffix: i.ws_url_suffix,
    leader_protocol_version: i.leader_protocol_version,
    leader_binary_version: i.leader_binary_version,
  };
}

function parseTuiPid(raw: string | boolean | undefined): number | null {
  if (raw === undefined || raw === false) return null;
  if (typeof raw !== "string" || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 0x7fff_ffff) {
    throw new UsageError("USAGE", `--tui-pid must be a positive pid, got ${String(raw)}`);
  }
  return Number(raw);
}

/** Extend the socket report with the leader proof. `socketReport` is the private-socket proof. */
export async function runSocketLeader(
  facts: SocketFacts,
  socketReport: Report,
  input: CommandInput,
  progress: Progress,
): Promise<Report> {
  const tuiPid = parseTuiPid(input.flags["tui-pid"]);
  const grokFlag = input.flags.grok;
  const socketPath = resolve(facts.path);
  const checks: CheckResult[] = [...socketReport.checks];
  let tui: BoundTui | null = null;
  let tuiExecutable: string | null = null;
  if (tuiPid !== null) {
    const read = readProcess(systemKernel, tuiPid);
    if (read.ok) {
      const f = read.facts;
      tui = { pid: f.pid, identity: f.identity, cwd: f.cwd ?? "" };
      tuiExecutable = f.executable;
    } else {
      const { code, message } = read.error;
      checks.push(fail("leader.tui", tuiPid, code, `the TUI pid cannot be read: ${message}`));
    }
  }
  const grokExecutable = resolveGrokExecutable(
    typeof grokFlag === "string" ? grokFlag : tuiExecutable,
  );
  const leaderJson: { [key: string]: JsonValue } = {
    registered: null,
    leaderInfo: null,
    peer: null,
    tui: tui === null ? null : { pid: tui.pid, identity: identityJson(tui.identity), cwd: tui.cwd },
    grokExecutable,
  };
  const report = (): Report => ({
    ...socketReport,
    facts: { ...asObject(socketReport.facts), leader: leaderJson },
    checks,
    topLevel: { leader: leaderJson },
  });

  if (!socketReport.checks.every((c) => c.ok)) {
    checks.push(
      fail(
        "leader.connect",
        "a proven private socket",
        "unproven",
        "not connecting: the socket proof failed",
      ),
    );
    return report();
  }
  progress(`connecting to the leader at ${socketPath}`);
  const uid = process.getuid?.() ?? -1;
  const peer = await connectProven(socketPath, { socket: facts, uid, tui });
  if (!peer.ok && peer.failed.check !== "connect.socket") {
    // The gate's passing checks are the same facts as leader.peer_*, which a registered leader's
    // report lists; they are shown only when the gate refuses.
    checks.push(
      ...peer.checks,
      fail(
        "leader.connect",
        "a proven peer",
        "unproven",
        "not registering: the peer of our connection is not proven",
      ),
    );
    return report();
  }
  let conn: LeaderConnection;
  try {
    if (!peer.ok) throw peer.cause;
    conn = await connectLeader(peer.socket);
  } catch (err) {
    if (!(err instanceof GrokSeatError)) throw err;
    checks.push(
      fail(
        "leader.connect",
        "registered",
        err.code,
        `cannot register with the leader: ${err.message}`,
      ),
    );
    return report();
  }
  try {
    leaderJson.registered = registeredJson(conn.registered);
    progress("asking get_leader_info and reading the kernel facts of the leader");
    const proof = await proveLeader(conn, { socketPath, tui, grokExecutable });
    leaderJson.leaderInfo = proof.leaderInfo === null ? null : leaderInfoJson(proof.leaderInfo);
    leaderJson.peer =
      proof.peer === null
        ? null
        : { pid: proof.peer.pid, uid: proof.peer.uid, identity: identityJson(proof.peer.identity) };
    checks.push(...proof.checks);
  } finally {
    await conn.close();
  }
  return report();
}

function asObject(v: JsonValue): { [key: string]: JsonValue } {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v : {};
}
