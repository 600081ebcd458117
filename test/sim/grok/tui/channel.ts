/**
 * How the TUI talks to its agent: through the leader socket (LeaderClient) or, when leader mode
 * is off (a confining sandbox profile), to an agent running in this very process (the real TUI's
 * embedded agent, pager acp/spawn.rs): no socket, no lock, no leader process. Both carry the
 * same ACP lines; the embedded one simply has nothing to lose.
 */
import { type AcpAnswer, AcpRpc } from "../acp-rpc.js";
import { SimAgent } from "../agent/agent.js";
import type { SimEnv } from "../env.js";
import { isRecord, parseJson } from "../json.js";
import type { CloseReason } from "../leader-client.js";

export interface AgentChannel {
  onAcp(handler: (msg: Record<string, unknown>) => void): void;
  onClose(handler: (reason: CloseReason) => void): void;
  startKeepalive(intervalMs: number): void;
  request(method: string, params: unknown): Promise<AcpAnswer>;
  notify(method: string, params: unknown): void;
  respond(id: unknown, result: unknown): void;
  respondError(id: unknown, error: unknown): void;
  close(): void;
  /** Why the connection ended, when the leader said (`shutting_down.reason`). */
  readonly shutdownReason?: string | undefined;
}

export class EmbeddedAgent extends AcpRpc implements AgentChannel {
  private readonly agent: SimAgent;
  private handler: (msg: Record<string, unknown>) => void = () => {};

  constructor(env: SimEnv) {
    super();
    this.agent = new SimAgent({
      env,
      launchCwd: process.cwd(),
      emit: (line) => setImmediate(() => this.fromAgent(line)),
      crash: () => process.kill(process.pid, "SIGKILL"),
    });
  }

  private fromAgent(line: string): void {
    const msg = parseJson(line);
    if (!isRecord(msg) || this.settle(msg)) return;
    this.handler(msg);
  }

  protected send(msg: unknown): void {
    const line = JSON.stringify(msg);
    setImmediate(() => this.agent.receive(line));
  }

  onAcp(handler: (msg: Record<string, unknown>) => void): void {
    this.handler = handler;
  }

  onClose(): void {
    // An in-process agent never goes away on its own.
  }

  startKeepalive(): void {
    // Nothing to keep alive.
  }

  close(): void {
    // The agent ends with the process; a non-leader quit first flushes every session
    // (agent_ops.rs `flush_all_sessions`), so the persistence merge buffers reach disk.
    this.agent.flushPersistence();
  }
}
