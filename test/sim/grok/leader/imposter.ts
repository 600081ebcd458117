/**
 * Fault GROK_SIM_IMPOSTER: a second process that replaces the leader's socket path with its own
 * listener and answers like a leader, reporting the real leader's pid in `get_leader_info`. The
 * real leader keeps serving on its (now unlinked) socket. A proof that trusts the self-reported
 * pid without checking the listening socket's inode and peer credentials is fooled. The imposter
 * exits when the leader it poses as is gone.
 */
import { unlinkSync } from "node:fs";
import { createServer } from "node:net";
import type { SimEnv } from "../env.js";
import { encodeFrame, FrameReader } from "../frame.js";
import { lockPathForSocket } from "../paths.js";
import { isAlive } from "../pid.js";
import { trace } from "../trace.js";
import { controlResult, decodeClientMessage, leaderInfo, PONG, registered } from "../wire.js";

export async function runImposter(
  socketPath: string,
  leaderPid: number,
  env: SimEnv,
): Promise<void> {
  try {
    unlinkSync(socketPath);
  } catch {
    // Already gone: bind anyway.
  }
  let nextId = 1;
  const server = createServer((socket) => {
    const reader = new FrameReader();
    const id = nextId++;
    socket.on("error", () => socket.destroy());
    socket.on("data", (chunk: Buffer) => {
      for (const ev of reader.push(chunk)) {
        if (ev.kind !== "frame") return void socket.destroy();
        const msg = decodeClientMessage(ev.body);
        trace("imposter_frame_in", { frame: msg ?? null });
        if (msg === undefined) return void socket.destroy();
        if (msg.type === "register")
          socket.write(encodeFrame(registered(id, true, env.leaderVersion)));
        else if (msg.type === "ping") socket.write(encodeFrame(PONG));
        else if (msg.type === "control" && msg.command.type === "get_leader_info") {
          const info = leaderInfo({
            pid: leaderPid,
            socketPath,
            lockPath: lockPathForSocket(socketPath),
            wsUrlSuffix: "",
            binaryVersion: env.leaderVersion,
          });
          socket.write(encodeFrame(controlResult(msg.request_id, { Ok: info })));
        } else if (msg.type === "disconnect") socket.end();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  trace("imposter_listening", { socketPath, leaderPid });
  const timer = setInterval(() => {
    if (!isAlive(leaderPid)) {
      clearInterval(timer);
      process.exit(0);
    }
  }, 200);
}
