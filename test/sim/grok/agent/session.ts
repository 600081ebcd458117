/**
 * One resident session actor: the server-authoritative prompt queue
 * (session/acp_session_impl/prompt_queue.rs) and the turn runner. Every queue change is
 * broadcast as `_x.ai/queue/changed` (queued rows only; the running one rides in
 * `runningPromptId`). A turn echoes the user text, runs the scripted tool calls and
 * interactions, streams the reply, then ends the way turn_end.rs does: queue rebroadcast, the
 * durable `turn_completed` record, and only then the prompt's own result.
 */
import { randomUUID } from "node:crypto";
import type { SimEnv } from "../env.js";
import { field, isRecord, str } from "../json.js";
import type { Effort } from "./catalog.js";
import type { SessionMcpServer } from "./mcp.js";
import { notification } from "./rpc.js";
import { isSyntheticPromptId, planTurn, splitChunks, type TurnPlan } from "./script.js";
import type { SessionStore } from "./store.js";
import { SessionEmitter, type UpdateSink } from "./updates.js";

export type PromptOutcome =
  | { kind: "done"; stopReason: string; cancelTrigger: string | undefined }
  | { kind: "removed" }
  | { kind: "error"; message: string };

export interface ReverseCall {
  promise: Promise<{ result?: unknown; error?: unknown } | "cancelled">;
  cancel(): void;
}

export interface SessionHost {
  readonly env: SimEnv;
  readonly sink: UpdateSink;
  /** Emit a raw line; `ack` lines (queue changes) honour GROK_SIM_ACK_DELAY_MS. */
  emitLine(line: string, ack: boolean): void;
  reverseRequest(method: string, params: unknown): ReverseCall;
  combineQueuedPrompts(): boolean;
  rosterChanged(session: Session, activity: string): void;
  crash(): void;
}

interface QueueItem {
  promptId: string;
  text: string;
  owner: string | undefined;
  version: number;
  visible: boolean;
  combinedTexts: string[] | undefined;
  resolve(outcome: PromptOutcome): void;
}

interface RunningTurn {
  item: QueueItem;
  cancelled: boolean;
  cancelTrigger: string | undefined;
  aborters: Set<() => void>;
}

export class Session {
  readonly id: string;
  readonly cwd: string;
  modelId: string;
  effort: Effort | undefined;
  /** The merged MCP server configs (mcp.ts), replaced by every load/resume (UpdateMcpServers). */
  mcpServers: SessionMcpServer[];
  readonly store: SessionStore;
  readonly emitter: SessionEmitter;
  /** Turns that ended (the signals' turn_count). */
  turns = 0;
  /** chat state prompt_index: prompts that started a turn (incremented at turn start). */
  promptIndex: number;
  /** Tool calls the turns ran (the signals' tool_call_count). */
  toolCalls = 0;
  /** Always-approve and auto permission modes (permissions.ts): tool calls run unasked. */
  yoloMode = false;
  autoMode = false;
  /** The client that created the session (`_meta.clientIdentifier`, handle.origin_client). */
  originClient: string | undefined;
  private readonly queue: QueueItem[] = [];
  private running: RunningTurn | undefined;
  private readonly pendingInteractions = new Map<string, string>();
  private readonly host: SessionHost;

  constructor(init: {
    id: string;
    cwd: string;
    modelId: string;
    effort: Effort | undefined;
    mcpServers: SessionMcpServer[];
    store: SessionStore;
    host: SessionHost;
    /** Prompts already in the session's record (a session loaded from disk). */
    promptIndex?: number;
  }) {
    this.id = init.id;
    this.cwd = init.cwd;
    this.modelId = init.modelId;
    this.effort = init.effort;
    this.mcpServers = init.mcpServers;
    this.promptIndex = init.promptIndex ?? 0;
    this.store = init.store;
    this.host = init.host;
    this.emitter = new SessionEmitter(init.id, init.store, init.host.sink);
  }

  get runningPromptId(): string | undefined {
    return this.running?.item.promptId;
  }

  get busy(): boolean {
    return this.running !== undefined || this.queue.length > 0 || this.pendingInteractions.size > 0;
  }

  get activity(): string {
    if (this.pendingInteractions.size > 0) return "needs_input";
    return this.running !== undefined ? "working" : "idle";
  }

  /** Enqueue a prompt; resolves with the prompt's terminal outcome. */
  prompt(promptId: string, text: string, owner: string | undefined): Promise<PromptOutcome> {
    return new Promise((resolve) => {
      this.queue.push({
        promptId,
        text,
        owner,
        version: 0,
        visible: !isSyntheticPromptId(promptId),
        combinedTexts: undefined,
        resolve,
      });
      this.broadcastQueue();
      this.maybeStart();
    });
  }

  /** session/cancel: the running turn, whoever started it; queued prompts stay. */
  cancel(trigger: string | undefined): void {
    const turn = this.running;
    if (turn === undefined || turn.cancelled) return;
    turn.cancelled = true;
    turn.cancelTrigger = trigger;
    for (const abort of [...turn.aborters]) abort();
  }

  /** x.ai/queue/remove: exact id + version (+ owner when given); always rebroadcasts. */
  removeQueued(id: string, expectedVersion: number, owner: string | undefined): void {
    const idx = this.queue.findIndex(
      (item) =>
        item.visible &&
        item !== this.running?.item &&
        item.promptId === id &&
        item.version === expectedVersion &&
        (owner === undefined || item.owner === owner),
    );
    const [removed] = idx >= 0 ? this.queue.splice(idx, 1) : [];
    removed?.resolve({ kind: "removed" });
    this.broadcastQueue();
  }

  /** x.ai/queue/clear: queued (not running) rows, owner-scoped when an owner is given. */
  clearQueue(owner: string | undefined): void {
    for (const item of [...this.queue]) {
      if (item === this.running?.item || !item.visible) continue;
      if (owner !== undefined && item.owner !== owner) continue;
      this.queue.splice(this.queue.indexOf(item), 1);
      item.resolve({ kind: "removed" });
    }
    this.broadcastQueue();
  }

  broadcastQueue(promoting?: QueueItem): void {
    const runningItem = promoting ?? this.running?.item;
    const entries = this.queue
      .filter((item) => item.visible && item !== runningItem)
      .map((item, position) => {
        const row: Record<string, unknown> = { id: item.promptId, version: item.version };
        if (item.owner !== undefined) row.owner = item.owner;
        row.kind = "prompt";
        row.text = item.text;
        if (item.combinedTexts !== undefined) row.combinedTexts = item.combinedTexts;
        row.position = position;
        return row;
      });
    const payload: Record<string, unknown> = { sessionId: this.id, entries };
    if (runningItem?.visible === true) {
      payload.runningPromptId = runningItem.promptId;
      payload.runningText = runningItem.text;
      payload.runningKind = "prompt";
      if (runningItem.combinedTexts !== undefined && runningItem.combinedTexts.length >= 2) {
        payload.runningCombinedTexts = runningItem.combinedTexts;
      }
    }
    this.host.emitLine(notification("_x.ai/queue/changed", payload), true);
  }

  private maybeStart(): void {
    if (this.running !== undefined) return;
    if (this.host.combineQueuedPrompts()) this.combineFront();
    const front = this.queue[0];
    if (front === undefined) return;
    const turn: RunningTurn = {
      item: front,
      cancelled: false,
      cancelTrigger: undefined,
      aborters: new Set(),
    };
    this.running = turn;
    if (front.visible) this.broadcastQueue(front);
    void this.runTurn(turn);
  }

  /** combine_front_pending_inputs: consecutive plain queued prompts merge into the front one. */
  private combineFront(): void {
    const run: QueueItem[] = [];
    for (const item of this.queue) {
      if (!item.visible) break;
      run.push(item);
    }
    if (run.length < 2) return;
    const [front, ...merged] = run;
    if (front === undefined) return;
    front.combinedTexts = run.map((i) => i.text);
    front.text = front.combinedTexts.join("\n\n");
    for (const item of merged) {
      this.queue.splice(this.queue.indexOf(item), 1);
      item.resolve({ kind: "removed" });
    }
  }

  private async runTurn(turn: RunningTurn): Promise<void> {
    const clock = this.emitter.clock;
    clock.promptId = turn.item.promptId;
    clock.turnStartMs = Date.now();
    clock.streamStartMs = undefined;
    this.host.rosterChanged(this, "working");
    let outcome: PromptOutcome;
    try {
      outcome = await this.executeTurn(turn);
    } catch (err) {
      outcome = { kind: "error", message: err instanceof Error ? err.message : String(err) };
    }
    this.finishTurn(turn, outcome);
  }

  private finishTurn(turn: RunningTurn, outcome: PromptOutcome): void {
    const idx = this.queue.indexOf(turn.item);
    if (idx >= 0) this.queue.splice(idx, 1);
    this.running = undefined;
    const clock = this.emitter.clock;
    clock.promptId = undefined;
    clock.turnStartMs = undefined;
    clock.streamStartMs = undefined;
    this.turns++;
    this.broadcastQueue();
    if (outcome.kind !== "removed") {
      const update: Record<string, unknown> = {
        sessionUpdate: "turn_completed",
        prompt_id: turn.item.promptId,
        stop_reason: outcome.kind === "error" ? "error" : outcome.stopReason,
      };
      if (outcome.kind === "error") update.agent_result = outcome.message;
      const extra: Record<string, unknown> = {};
      if (outcome.kind === "done" && outcome.cancelTrigger !== undefined) {
        extra.cancelTrigger = outcome.cancelTrigger;
      }
      this.emitter.xaiPersisted(update, extra);
    }
    turn.item.resolve(outcome);
    this.host.rosterChanged(this, this.activity);
    setImmediate(() => this.maybeStart());
  }

  private async executeTurn(turn: RunningTurn): Promise<PromptOutcome> {
    const plan = planTurn(turn.item.text);
    // turn.rs: the user echo carries ContentChunk `_meta` {modelId, promptIndex,
    // hideFromScrollback?}; the prompt index counts from 0 and advances as the turn starts.
    const chunkMeta: Record<string, unknown> = {
      modelId: this.modelId,
      promptIndex: this.promptIndex,
    };
    if (!turn.item.visible) chunkMeta.hideFromScrollback = true;
    this.promptIndex++;
    this.emitter.totalTokens += estimateTokens(turn.item.text);
    this.emitter.update({
      sessionUpdate: "user_message_chunk",
      content: { type: "text", text: turn.item.text },
      _meta: chunkMeta,
    });
    const notes: string[] = [];
    for (const kind of plan.tools) {
      if (turn.cancelled) break;
      const id = toolCallId();
      this.toolCalls++;
      this.emitter.update({
        sessionUpdate: "tool_call",
        toolCallId: id,
        title: `Simulated ${kind} tool`,
        kind,
        status: "pending",
      });
      if (!(await this.sleep(turn, this.host.env.chunkDelayMs))) break;
      this.emitter.update({
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        status: "completed",
      });
      notes.push(`Ran a ${kind} tool.`);
    }
    if (plan.fsRead && !turn.cancelled) notes.push(await this.readFile(turn));
    if (plan.permission && !turn.cancelled) notes.push(await this.askPermission(turn));
    if (plan.ask && !turn.cancelled) notes.push(await this.askQuestion(turn));
    if (plan.plan && !turn.cancelled) notes.push(await this.askPlanApproval(turn));
    if (!turn.cancelled) await this.stream(turn, plan, notes);
    if (turn.cancelled)
      return { kind: "done", stopReason: "cancelled", cancelTrigger: turn.cancelTrigger };
    if (plan.error !== undefined) return { kind: "error", message: plan.error };
    return { kind: "done", stopReason: plan.stopReason, cancelTrigger: undefined };
  }

  private async stream(turn: RunningTurn, plan: TurnPlan, notes: string[]): Promise<void> {
    const text = [plan.reply, ...notes].join(" ");
    const chunks = splitChunks(text, plan.chunks);
    this.emitter.clock.streamStartMs = Date.now();
    let sent = 0;
    for (const [i, chunk] of chunks.entries()) {
      if (turn.cancelled) return;
      this.emitter.totalTokens += estimateTokens(chunk);
      this.emitter.update(
        { sessionUpdate: "agent_message_chunk", content: { type: "text", text: chunk } },
        i,
      );
      sent++;
      if (this.host.env.crashAfterChunks !== undefined && sent >= this.host.env.crashAfterChunks) {
        this.host.crash();
      }
      const pause = i === 0 && plan.sleepMs > 0 ? plan.sleepMs : this.host.env.chunkDelayMs;
      if (i < chunks.length - 1 && !(await this.sleep(turn, pause))) return;
    }
  }

  /** A driver-only reverse request (fs/read_text_file goes to the session's driver client). */
  private async readFile(turn: RunningTurn): Promise<string> {
    const call = this.host.reverseRequest("fs/read_text_file", {
      sessionId: this.id,
      path: `${this.cwd.replace(/\/+$/, "")}/README.md`,
    });
    const res = await this.abortable(turn, call);
    if (res === "cancelled") return "The file read was cancelled.";
    const content = str(field(res.result, "content"));
    return content === undefined
      ? "The file could not be read."
      : `The file has ${content.length} characters.`;
  }

  private async askPermission(turn: RunningTurn): Promise<string> {
    const id = toolCallId();
    const toolCall = {
      toolCallId: id,
      title: "Run simulated command",
      kind: "execute",
      status: "pending",
      rawInput: { command: "echo simulated" },
    };
    this.toolCalls++;
    this.emitter.update({ sessionUpdate: "tool_call", ...toolCall });
    if (this.yoloMode || this.autoMode) {
      // The permission manager approves without asking anyone (yolo; auto's classifier allows).
      this.emitter.update({
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        status: "completed",
      });
      return "Permission was granted automatically.";
    }
    const res = await this.interaction(turn, id, "permission", "session/request_permission", {
      sessionId: this.id,
      toolCall,
      options: [
        { optionId: "allow-once", name: "Yes, proceed", kind: "allow_once" },
        {
          optionId: "reject-once",
          name: "No, and tell Grok what to do differently",
          kind: "reject_once",
        },
      ],
    });
    const outcome = field(res === "cancelled" ? undefined : res.result, "outcome");
    const optionId = str(field(outcome, "optionId"));
    const allowed =
      field(outcome, "outcome") === "selected" && optionId?.startsWith("allow") === true;
    this.emitter.update({
      sessionUpdate: "tool_call_update",
      toolCallId: id,
      status: allowed ? "completed" : "failed",
    });
    return allowed ? "Permission was granted." : "Permission was denied.";
  }

  private async askQuestion(turn: RunningTurn): Promise<string> {
    const id = toolCallId();
    const res = await this.interaction(turn, id, "question", "_x.ai/ask_user_question", {
      sessionId: this.id,
      toolCallId: id,
      questions: [
        {
          question: "Which option should the simulator take?",
          options: [
            { label: "First", description: "Take the first option" },
            { label: "Second", description: "Take the second option" },
          ],
          multiSelect: false,
        },
      ],
      mode: "default",
    });
    const result = res === "cancelled" ? undefined : res.result;
    const outcome = str(field(result, "outcome"));
    if (outcome !== "accepted") return `The question was ${outcome ?? "cancelled"}.`;
    const answers = field(result, "answers");
    return `The answer was ${JSON.stringify(isRecord(answers) ? answers : {})}.`;
  }

  private async askPlanApproval(turn: RunningTurn): Promise<string> {
    const id = toolCallId();
    const res = await this.interaction(turn, id, "plan_approval", "_x.ai/exit_plan_mode", {
      sessionId: this.id,
      toolCallId: id,
      planContent: "1. Simulate.\n2. Report.",
    });
    const outcome = str(field(res === "cancelled" ? undefined : res.result, "outcome"));
    return `The plan was ${outcome ?? "cancelled"}.`;
  }

  /** A shared interaction: pending_interaction, the reverse request, interaction_resolved. */
  private async interaction(
    turn: RunningTurn,
    id: string,
    kind: string,
    method: string,
    params: unknown,
  ): Promise<{ result?: unknown; error?: unknown } | "cancelled"> {
    this.pendingInteractions.set(id, kind);
    this.emitter.xaiTransient({ sessionUpdate: "pending_interaction", tool_call_id: id, kind });
    this.host.rosterChanged(this, "needs_input");
    const res = await this.abortable(turn, this.host.reverseRequest(method, params));
    this.pendingInteractions.delete(id);
    this.emitter.xaiTransient({ sessionUpdate: "interaction_resolved", tool_call_id: id });
    this.host.rosterChanged(this, this.activity);
    return res;
  }

  private async abortable(
    turn: RunningTurn,
    call: ReverseCall,
  ): Promise<{ result?: unknown; error?: unknown } | "cancelled"> {
    const abort = (): void => call.cancel();
    turn.aborters.add(abort);
    try {
      return await call.promise;
    } finally {
      turn.aborters.delete(abort);
    }
  }

  /** Sleep that a cancel cuts short; false when the turn was cancelled. */
  private sleep(turn: RunningTurn, ms: number): Promise<boolean> {
    if (turn.cancelled) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        turn.aborters.delete(done);
        resolve(!turn.cancelled);
      };
      const timer = setTimeout(done, ms);
      turn.aborters.add(done);
    });
  }
}

function toolCallId(): string {
  return `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
