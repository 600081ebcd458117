/**
 * The counting fake leader of the crash tests (docs/design/reliability-plan.md §6 T1): a plain unix-socket
 * server speaking newline-delimited JSON. Every prompt id it receives is appended, before any
 * reply, to `<scenario>/leader.log` opened O_APPEND | O_DSYNC: the ground truth of what left a
 * controller, independent of the controller's own journal.
 *
 * Client -> leader: `hello {scenario}` (answered by a replay of every finished result, like the
 * `turn_completed` replay of docs/design/grok-leader-protocol.md §4, then `replay-done`); `prompt {promptId,
 * sessionId, epoch, behave, text}`; `cancel {promptId}`. What a prompt does is
 * test/helpers/scripted-turns.ts, shared with the in-memory leader of the power-loss test.
 * Each received line is written to the log as `<promptId> <epoch>`.
 */
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import * as v from "valibot";
import { ScriptedTurns } from "./scripted-turns.js";

const Hello = v.object({ type: v.literal("hello"), scenario: v.pipe(v.string(), v.minLength(1)) });
const Prompt = v.object({
  type: v.literal("prompt"),
  promptId: v.string(),
  sessionId: v.string(),
  epoch: v.number(),
  behave: v.picklist(["complete", "hold-cancel", "drop", "fail-send"]),
  text: v.string(),
});
const Cancel = v.object({ type: v.literal("cancel"), promptId: v.string() });
const ClientLine = v.variant("type", [Hello, Prompt, Cancel]);

interface Scenario {
  readonly logFd: number;
  readonly turns: ScriptedTurns;
}

export interface CountingLeader {
  readonly socketPath: string;
  /** Frames that failed to parse (should stay 0). */
  readonly malformed: () => number;
  /** Close a scenario's log and forget its results. */
  endScenario(dir: string): void;
  close(): Promise<void>;
}

export async function startCountingLeader(socketPath: string): Promise<CountingLeader> {
  const scenarios = new Map<string, Scenario>();
  let malformed = 0;
  const scenarioOf = (dir: string): Scenario => {
    let s = scenarios.get(dir);
    if (s === undefined) {
      const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_DSYNC;
      s = {
        logFd: openSync(join(dir, "leader.log"), flags, 0o600),
        turns: new ScriptedTurns(),
      };
      scenarios.set(dir, s);
    }
    return s;
  };
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    let scenario: Scenario | undefined;
    let buf = "";
    const send = (msg: object): void => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(msg)}\n`);
    };
    const handle = (line: string): void => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        malformed++;
        return;
      }
      const msg = v.safeParse(ClientLine, parsed);
      if (!msg.success) {
        malformed++;
        return;
      }
      const m = msg.output;
      if (m.type === "hello") {
        scenario = scenarioOf(m.scenario);
        for (const event of scenario.turns.replay()) send(event);
        return;
      }
      const s = scenario;
      if (s === undefined) {
        malformed++;
        return;
      }
      if (m.type === "prompt") {
        writeSync(s.logFd, `${m.promptId} ${m.epoch}\n`);
        const { events, drop } = s.turns.prompt(m, socket);
        for (const event of events) send(event);
        if (drop) socket.destroy();
      } else {
        for (const event of s.turns.cancel(m.promptId)) send(event);
      }
    };
    socket.on("data", (chunk: Buffer) => {
      buf += chunk.toString("utf8");
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!socket.destroyed) handle(line);
      }
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      sockets.delete(socket);
      scenario?.turns.disconnected(socket);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    socketPath,
    malformed: () => malformed,
    endScenario: (dir) => {
      const s = scenarios.get(dir);
      if (s === undefined) return;
      closeSync(s.logFd);
      scenarios.delete(dir);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        for (const s of scenarios.values()) closeSync(s.logFd);
        scenarios.clear();
        server.close(() => resolve());
      }),
  };
}
