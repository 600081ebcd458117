/**
 * leader/mod.rs connect_or_spawn, for the TUI: adopt a live leader (socket present, lock pid
 * alive), evicting it first when it runs a strictly older version (relaunch_for_update when it
 * advertises relaunch_v1, else SIGTERM); otherwise take and release the lock and spawn
 * `<exe> agent leader --no-exit-on-disconnect --relay-on-demand --grok-ws-url U --grok-ws-origin
 * O` as a direct child in a new process group (stdin/stdout /dev/null, stderr
 * `$GROK_HOME/leader.log` truncated, environment inherited), then poll for the socket (10 s,
 * 100 ms) and register.
 */
import { spawn } from "node:child_process";
import { closeSync, constants, existsSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { grokHome, PROD_RELAY_WS_URL, PROD_WS_ORIGIN } from "../env.js";
import { lockExclusive, unlock } from "../flock.js";
import { leaderIsOlderThan } from "../leader/routing.js";
import { LeaderClient } from "../leader-client.js";
import { leaderPaths } from "../paths.js";
import { isAlive } from "../pid.js";
import { selfCommand } from "../self.js";
import type { ClientCapabilities } from "../wire.js";

const SPAWN_WAIT_TIMEOUT_MS = 10_000;
const SPAWN_POLL_INTERVAL_MS = 100;
const EVICT_WAIT_TIMEOUT_MS = 8_000;
const MAX_SELF_SPAWN_ATTEMPTS = 3;

export interface SpawnResult {
  client: LeaderClient;
  spawnedPid: number | undefined;
}

export function readLockPid(lockPath: string): number | undefined {
  try {
    const text = readFileSync(lockPath, "utf8").trim();
    return /^\d+$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function tryConnect(
  socketPath: string,
  clientType: string,
  caps: ClientCapabilities,
): Promise<LeaderClient | undefined> {
  try {
    return await LeaderClient.connect(socketPath, clientType, caps);
  } catch {
    return undefined;
  }
}

function shouldEvict(client: LeaderClient, ourVersion: string): boolean {
  const v = client.registration.leader_binary_version;
  return typeof v === "string" && leaderIsOlderThan(v, ourVersion);
}

async function evict(client: LeaderClient, lockPath: string, ourVersion: string): Promise<void> {
  const pid = readLockPid(lockPath);
  const caps = client.registration.leader_capabilities;
  const closed = new Promise<void>((resolve) => client.onClose(() => resolve()));
  if (caps?.relaunch_v1 === true) {
    await client
      .control({ type: "relaunch_for_update", to_version: ourVersion })
      .catch(() => undefined);
  } else if (pid !== undefined) {
    process.kill(pid, "SIGTERM");
  }
  await Promise.race([closed, sleep(EVICT_WAIT_TIMEOUT_MS)]);
  client.close();
  const deadline = Date.now() + EVICT_WAIT_TIMEOUT_MS;
  while (pid !== undefined && isAlive(pid) && Date.now() < deadline) await sleep(100);
  if (pid !== undefined && isAlive(pid)) process.kill(pid, "SIGKILL");
}

function spawnLeader(): number | undefined {
  const self = selfCommand();
  const managed = join(grokHome(), "bin", "grok");
  const exe =
    self.prefix.length === 0 && self.file.startsWith(`${grokHome()}/`) && existsSync(managed)
      ? managed
      : self.file;
  const args = [
    ...self.prefix,
    "agent",
    "leader",
    "--no-exit-on-disconnect",
    "--relay-on-demand",
    "--grok-ws-url",
    PROD_RELAY_WS_URL,
    "--grok-ws-origin",
    PROD_WS_ORIGIN,
  ];
  const log = openSync(join(grokHome(), "leader.log"), "w");
  const env = {
    ...process.env,
    RUST_LOG:
      process.env.GROK_LEADER_LOG ??
      process.env.RUST_LOG ??
      "xai_grok_shell=info,xai_acp_lib=warn,xai_grok_mcp=warn",
  };
  // process_group(0): setpgid then exec, so the leader stays a direct child of this process in
  // its own process group (same session). perl-base is essential on Debian; without it fall back
  // to Node's detached spawn (setsid: also a new process group, but a new session too).
  const perl = "/usr/bin/perl";
  const child = existsSync(perl)
    ? spawn(perl, ["-e", "setpgrp(0, 0); exec { $ARGV[0] } @ARGV or die", exe, ...args], {
        stdio: ["ignore", "ignore", log],
        env,
      })
    : spawn(exe, args, { stdio: ["ignore", "ignore", log], env, detached: true });
  closeSync(log);
  child.on("error", () => undefined);
  child.unref();
  return child.pid;
}

async function waitConnectable(
  socketPath: string,
  clientType: string,
  caps: ClientCapabilities,
): Promise<LeaderClient | undefined> {
  const deadline = Date.now() + SPAWN_WAIT_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (existsSync(socketPath)) {
      const client = await tryConnect(socketPath, clientType, caps);
      if (client !== undefined) return client;
    }
    await sleep(SPAWN_POLL_INTERVAL_MS);
  }
  return undefined;
}

export async function connectOrSpawn(
  clientType: string,
  caps: ClientCapabilities,
  ourVersion: string,
): Promise<SpawnResult> {
  const { socketPath, lockPath } = leaderPaths(PROD_RELAY_WS_URL);
  if (existsSync(socketPath)) {
    const pid = readLockPid(lockPath);
    if (pid === undefined || isAlive(pid)) {
      const client = await tryConnect(socketPath, clientType, caps);
      if (client !== undefined) {
        if (!shouldEvict(client, ourVersion)) return { client, spawnedPid: undefined };
        await evict(client, lockPath, ourVersion);
      }
    }
  }
  let selfSpawns = 0;
  for (;;) {
    const fd = openSync(lockPath, constants.O_RDWR | constants.O_CREAT);
    let acquired = false;
    try {
      acquired = lockExclusive(fd, true);
      if (acquired) {
        const pid = readLockPid(lockPath);
        if (existsSync(socketPath) && pid !== undefined && isAlive(pid)) {
          const client = await tryConnect(socketPath, clientType, caps);
          if (client !== undefined) {
            if (!shouldEvict(client, ourVersion)) return { client, spawnedPid: undefined };
            unlock(fd);
            await evict(client, lockPath, ourVersion);
          }
        }
        unlock(fd);
      }
    } finally {
      closeSync(fd);
    }
    if (acquired) {
      const spawnedPid = spawnLeader();
      const client = await waitConnectable(socketPath, clientType, caps);
      if (client !== undefined) return { client, spawnedPid };
      if (++selfSpawns >= MAX_SELF_SPAWN_ATTEMPTS) {
        throw new Error(
          `spawned leader did not become connectable after ${MAX_SELF_SPAWN_ATTEMPTS} attempts`,
        );
      }
      continue;
    }
    const client = await waitConnectable(socketPath, clientType, caps);
    if (client !== undefined) {
      if (!shouldEvict(client, ourVersion)) return { client, spawnedPid: undefined };
      await evict(client, lockPath, ourVersion);
    }
  }
}
