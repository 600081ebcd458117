/**
 * The in-memory seat world of the ACP unit tests: a scripted agent answering the attach sequence
 * over a memory pipe, an admitted controller with a real journal in a private temp seat
 * directory, and the seat's events. Shared by client.test.ts and deliveries.test.ts.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attachSession } from "../../lib/acp/acp-handshake.js";
import type { AcpSession, AcpSessionEvent } from "../../lib/acp/acp-session.js";
import type { RpcMessage } from "../../lib/acp/json-rpc.js";
import { admitController, type Controller } from "../../lib/delivery/index.js";
import { FakeAgent, MemoryPipe } from "./helpers.js";

/** The code a promise rejected with, or null when it resolved. */
export { rejectionCode as refusal } from "../helpers/error-code.js";

export const S = "0198b0c2-1111-7222-8333-444455556666";
export const CWD = "/home/owner/project";

export interface World {
  pipe: MemoryPipe;
  agent: FakeAgent;
  controller: Controller;
  dir: string;
  events: AcpSessionEvent[];
}

const dirs: string[] = [];
export function seatDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "acp-client-"));
  chmodSync(dir, 0o700);
  dirs.push(dir);
  return dir;
}

export function world(
  dir = seatDir(),
  setup: (a: FakeAgent) => void = () => {},
  pipe = new MemoryPipe(),
): World {
  const agent = new FakeAgent(pipe);
  agent
    .on("initialize", () => ({
      protocolVersion: 1,
      agentCapabilities: { loadSession: true, sessionCapabilities: { resume: {}, close: {} } },
      _meta: { agentVersion: "1.0.48", currentWorkingDirectory: CWD },
    }))
    .on("_x.ai/session/info", () => ({ result: { sessionId: S, cwd: CWD, turns: 0 } }))
    .on("_x.ai/mcp/list", () => ({
      result: {
        servers: [
          {
            name: "docs",
            source: "local",
            type: "http",
            url: "https://docs.example/mcp",
            session: { enabled: true },
          },
        ],
      },
    }))
    .on("session/resume", () => ({
      models: {
        currentModelId: "grok-build",
        availableModels: [
          {
            modelId: "grok-build",
            name: "Grok Build",
            _meta: { supportsReasoningEffort: true, reasoningEfforts: ["low", "high"] },
          },
          { modelId: "grok-fast", name: "Grok Fast" },
        ],
      },
      _meta: { sessionId: S, "x.ai/sessionConfig": { options: [] } },
    }));
  setup(agent);
  return { pipe, agent, controller: admitController({ seatDir: dir }), dir, events: [] };
}

/** The session options every in-memory test attaches with: the world's journal, fixed identities. */
export function sessionOptions(w: World): Parameters<typeof attachSession>[1] {
  return {
    sessionId: S,
    cwd: CWD,
    journal: w.controller.journal,
    leaderIdentity: "pidfd:4242",
    paneIdentity: "herdr:p1",
    requestTimeoutMs: 2_000,
  };
}

export async function attach(w: World): Promise<AcpSession> {
  const seat = await attachSession(w.pipe, sessionOptions(w));
  seat.on((e) => w.events.push(e));
  return seat;
}

export const requests = (w: World): string[] =>
  w.agent.received.flatMap((m) => (m.kind === "request" ? [m.method] : []));
export const sentTo = (w: World, method: string): RpcMessage[] =>
  w.agent.received.filter((m) => m.kind !== "response" && m.method === method);

/** Remove every seat directory `seatDir()` made (call from `test.after`). */
export function removeSeatDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}
