/**
 * `grok leader list|info [--json]` (leader/mod.rs discover_leaders_in; bin/main.rs
 * leader_descriptor_json / leader_info_json): only `leader*.lock` / `leader*.sock` directly in
 * `$GROK_HOME` are candidates (a private socket elsewhere is invisible), each reachable one is
 * asked `get_leader_info` over a `grok-leader-discovery` connection.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { grokHome } from "./env.js";
import { field, isRecord, str } from "./json.js";
import { LeaderClient } from "./leader-client.js";
import { readLockPid } from "./tui/spawn.js";
import { defaultCapabilities } from "./wire.js";

type Classification = "Reachable" | "Stale" | "Unreachable" | "UnsupportedProtocol" | "Ambiguous";

interface LiveInfo {
  pid: number;
  payload: Record<string, unknown>;
}

interface Descriptor {
  pidFromLock: number | undefined;
  lockPath: string | undefined;
  socketPath: string | undefined;
  wsUrlSuffix: string;
  classification: Classification;
  live: LiveInfo | undefined;
}

async function fetchLive(
  socketPath: string,
  clientType: string,
): Promise<{ live?: LiveInfo; error?: "unreachable" | "unsupported"; client?: LeaderClient }> {
  let client: LeaderClient;
  try {
    client = await LeaderClient.connect(socketPath, clientType, defaultCapabilities());
  } catch {
    return { error: "unreachable" };
  }
  const reg = client.registration;
  const proto = reg.leader_protocol_version;
  if (typeof proto !== "number" || proto < 1 || reg.leader_capabilities?.control_v1 !== true) {
    return { error: "unsupported", client };
  }
  try {
    const result = await client.control({ type: "get_leader_info" });
    const ok = field(result, "Ok");
    const pid = field(ok, "pid");
    if (!isRecord(ok) || field(ok, "type") !== "leader_info" || typeof pid !== "number") {
      return { error: "unsupported", client };
    }
    return { live: { pid, payload: ok }, client };
  } catch {
    return { error: "unreachable", client };
  }
}

export async function discoverLeaders(clientType = "grok-leader-discovery"): Promise<Descriptor[]> {
  const root = grokHome();
  const candidates = new Map<string, { lock?: string; sock?: string }>();
  let names: string[] = [];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  for (const name of names.sort()) {
    const m = /^leader(.*)\.(lock|sock)$/.exec(name);
    if (m === null) continue;
    const suffix = m[1] ?? "";
    const entry = candidates.get(suffix) ?? {};
    if (m[2] === "lock") entry.lock = join(root, name);
    else entry.sock = join(root, name);
    candidates.set(suffix, entry);
  }
  const out: Descriptor[] = [];
  for (const [suffix, c] of [...candidates].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const pidFromLock = c.lock === undefined ? undefined : readLockPid(c.lock);
    const base = { pidFromLock, lockPath: c.lock, socketPath: c.sock, wsUrlSuffix: suffix };
    if (c.sock === undefined) {
      out.push({ ...base, classification: "Stale", live: undefined });
      continue;
    }
    const res = await fetchLive(c.sock, clientType);
    res.client?.close();
    const wsUrlSuffix = str(field(res.live?.payload, "ws_url_suffix")) ?? suffix;
    out.push({
      ...base,
      wsUrlSuffix,
      classification:
        res.live !== undefined
          ? "Reachable"
          : res.error === "unsupported"
            ? "UnsupportedProtocol"
            : "Unreachable",
      live: res.live,
    });
  }
  return out;
}

export function descriptorJson(d: Descriptor): Record<string, unknown> {
  return {
    pid: d.live?.pid ?? d.pidFromLock ?? null,
    pidFromLock: d.pidFromLock ?? null,
    pidLive: d.live?.pid ?? null,
    classification: d.classification,
    socketPath: d.socketPath ?? null,
    lockPath: d.lockPath ?? null,
    wsUrlSuffix: d.wsUrlSuffix,
  };
}

export async function leaderList(json: boolean): Promise<number> {
  const leaders = await discoverLeaders();
  if (json) process.stdout.write(`${JSON.stringify(leaders.map(descriptorJson))}\n`);
  else if (leaders.length === 0) process.stdout.write("No leader candidates found.\n");
  else {
    for (const d of leaders) {
      const pid = d.live?.pid ?? d.pidFromLock;
      process.stderr.write(`  PID ${pid ?? "?"} (${d.classification}) -- ${d.socketPath ?? "?"}\n`);
    }
  }
  return 0;
}

export async function leaderInfo(json: boolean, pid: number | undefined): Promise<number> {
  const leaders = await discoverLeaders();
  const target =
    pid !== undefined
      ? leaders.find((d) => (d.live?.pid ?? d.pidFromLock) === pid)
      : leaders.find((d) => d.wsUrlSuffix === "" && d.classification === "Reachable");
  if (target === undefined || target.socketPath === undefined) {
    process.stderr.write(
      `Error: ${pid !== undefined ? `no leader with pid ${pid} found` : "no running leader found for the production environment"}\n`,
    );
    return 1;
  }
  const res = await fetchLive(target.socketPath, "grok-pager-leader-cli");
  const client = res.client;
  if (client === undefined) {
    process.stderr.write(`Error: failed to connect to leader socket ${target.socketPath}\n`);
    return 1;
  }
  if (json) {
    const payload: Record<string, unknown> = {
      ...descriptorJson(target),
      clientId: client.registration.client_id,
    };
    if (res.live !== undefined) payload.info = res.live.payload;
    process.stdout.write(`${JSON.stringify(payload)}\n`);
  } else if (res.live !== undefined) {
    process.stdout.write(`${JSON.stringify(res.live.payload, null, 4)}\n`);
  } else {
    process.stderr.write(
      "  (detailed info unavailable — leader does not advertise control capabilities)\n",
    );
  }
  client.close();
  return 0;
}
