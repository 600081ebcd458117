/**
 * The TUI's side of ACP requests, the same whether its agent sits behind the leader socket or in
 * this very process: ids counted from 0, answers matched by id, and responses to the agent's own
 * requests (permission, fs) sent back with the id they came with.
 */
export interface AcpAnswer {
  result?: unknown;
  error?: unknown;
}

export abstract class AcpRpc {
  private nextId = 0;
  private readonly pending = new Map<string, (answer: AcpAnswer) => void>();

  /** Carries one JSON-RPC message to the agent. */
  protected abstract send(msg: unknown): void;

  request(method: string, params: unknown): Promise<AcpAnswer> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(JSON.stringify(id), resolve);
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: "2.0", method, params });
  }

  respond(id: unknown, result: unknown): void {
    this.send({ jsonrpc: "2.0", id, result });
  }

  respondError(id: unknown, error: unknown): void {
    this.send({ jsonrpc: "2.0", id, error });
  }

  /** Settles the request `msg` answers; false when it answers none of ours. */
  protected settle(msg: Record<string, unknown>): boolean {
    if (msg.method !== undefined || msg.id === undefined) return false;
    const key = JSON.stringify(msg.id);
    const settle = this.pending.get(key);
    if (settle === undefined) return false;
    this.pending.delete(key);
    settle({ result: msg.result, error: msg.error });
    return true;
  }
}
