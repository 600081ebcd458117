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
import { loadConfig } from "./config.js";
import type { SessionMcpServer } from "./mcp.js";
import { McpConnections } from "./mcp-connect.js";
import { mcpDecision, permissionRules, type RuleAction } from "./permission.js";
import { notification } from "./rpc.js";
import {
  isSyntheticPromptId,
  planTurn,
  splitChunks,
  type ToolCallLine,
  type TurnPlan,
  thoughtFor,
} from "./script.js";
import type { SessionStore } from "./store.js";
import { SessionEmitter, type UpdateSink } from "./updates.js";

/** The turn's usage (notification.rs PromptUsage, camelCase, no cost: the simulator has none). */
export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  modelCalls: number;
}

export type PromptOutcome =
  | { kind: "done"; stopReason: string; cancelTrigger: string | undefined; usage: TurnUsage }
  | { kind: "removed" }
  | { kind: "error"; message: string; usage: TurnUsage };

/** PromptUsage on the wire: flattened totals, `modelUsage` per model, `numTurns`. */
export function promptUsageJson(usage: TurnUsage, modelId: string): Record<string, unknown> {
  const totals = {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
    cachedReadTokens: 0,
    cacheCreationTokens: 0,
    reasoningTokens: usage.reasoningTokens,
    modelCalls: usage.modelCalls,
    apiDurationMs: 0,
  };
  return { ...totals, modelUsage: { [modelId]: { ...totals } }, numTurns: usage.modelCalls };
}

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
  /** The prompt's text blocks as sent: the user echo repeats each one (turn.rs). */
  blocks: string[];
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
  /** The live MCP clients of those servers (mcp-connect.ts). */
  readonly mcp: McpConnections;
  /** The active harness (`active_agent_type`), changed by a zero-turn model switch rebuild. */
  agentType: string;
  /** The conversation's system head (chat_history.jsonl). */
  systemHead = "";
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
  /** `[permission]` rules, read when the session starts (permission.ts). */
  private readonly rules = permissionRules(loadConfig());

  constructor(init: {
    id: string;
    cwd: string;
    modelId: string;
    effort: Effort | undefined;
    mcpServers: SessionMcpServer[];
    agentType: string;
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
    this.agentType = init.agentType;
    this.mcp = new McpConnections(init.host.env.agentVersion, (push) =>
      init.host.sink.emit(
        notification("_x.ai/mcp/server_status", {
          sessionId: init.id,
          name: push.name,
          source: "local",
          status: push.status,
          reason: push.reason,
          ...(push.detail === undefined ? {} : { detail: push.detail }),
          tools: null,
        }),
      ),
    );
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

  /** UpdateMcpServers: replace the configs; resolves when the new handshakes are done. */
  setMcpServers(servers: SessionMcpServer[]): Promise<void> {
    this.mcpServers = servers;
    return this.mcp.update(servers);
  }

  /** Enqueue a prompt; resolves with the prompt's terminal outcome. */
  prompt(
    promptId: string,
    text: string,
    owner: string | undefined,
    blocks: string[] = [text],
  ): Promise<PromptOutcome> {
    return new Promise((resolve) => {
      this.queue.push({
        promptId,
        text,
        blocks,
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
    front.blocks = [front.text];
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
      const message = err instanceof Error ? err.message : String(err);
      outcome = { kind: "error", message, usage: this.usageOf(turn, "") };
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
    // turn.rs flushes the persistence merge buffer (`flush_to_disk`) before the terminal record.
    this.store.flush();
    if (outcome.kind !== "removed") {
      const update: Record<string, unknown> = {
        sessionUpdate: "turn_completed",
        prompt_id: turn.item.promptId,
        stop_reason: outcome.kind === "error" ? "error" : outcome.stopReason,
      };
      if (outcome.kind === "error") update.agent_result = outcome.message;
      update.usage = promptUsageJson(outcome.usage, this.modelId);
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
    for (const block of turn.item.blocks) {
      this.emitter.direct({
        sessionUpdate: "user_message_chunk",
        content: { type: "text", text: block },
        _meta: chunkMeta,
      });
    }
    const notes: string[] = [];
    if (plan.thought && !turn.cancelled)
      await this.streamText(turn, thoughtFor(plan.text), 3, true);
    if (plan.todo && !turn.cancelled) {
      this.emitter.update({
        sessionUpdate: "plan",
        entries: [
          { content: "Read the prompt", priority: "medium", status: "completed" },
          { content: "Answer it", priority: "medium", status: "in_progress" },
        ],
      });
    }
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
    for (const call of plan.calls) {
      if (turn.cancelled) break;
      notes.push(await this.mcpToolCall(turn, call));
    }
    const reply = [plan.reply, ...notes].join(" ");
    if (!turn.cancelled) await this.stream(turn, plan, reply);
    if (plan.title !== undefined && !turn.cancelled) this.announceTitle(plan.title);
    const usage = this.usageOf(turn, reply, plan);
    if (turn.cancelled)
      return { kind: "done", stopReason: "cancelled", cancelTrigger: turn.cancelTrigger, usage };
    if (plan.error !== undefined) return { kind: "error", message: plan.error, usage };
    return { kind: "done", stopReason: plan.stopReason, cancelTrigger: undefined, usage };
  }

  private usageOf(turn: RunningTurn, reply: string, plan?: TurnPlan): TurnUsage {
    return {
      inputTokens: estimateTokens(this.systemHead) + estimateTokens(turn.item.text),
      outputTokens: estimateTokens(reply),
      reasoningTokens: plan?.thought === true ? estimateTokens(thoughtFor(plan.text)) : 0,
      modelCalls: 1 + (plan?.calls.length ?? 0),
    };
  }

  /** summary.rs notify_client: the title notice and `session_info_update`, broadcast only. */
  private announceTitle(title: string): void {
    this.emitter.xaiBroadcast({
      sessionUpdate: "session_summary_generated",
      session_summary: title,
    });
    this.emitter.acpTransient({ sessionUpdate: "session_info_update", title });
  }

  private stream(turn: RunningTurn, plan: TurnPlan, text: string): Promise<void> {
    return this.streamText(turn, text, plan.chunks, false, plan.sleepMs);
  }

  /** Stream message (or thought) chunks, each a send_update with its chunk index. */
  private async streamText(
    turn: RunningTurn,
    text: string,
    pieces: number,
    thought: boolean,
    firstPauseMs = 0,
  ): Promise<void> {
    const chunks = splitChunks(text, pieces);
    this.emitter.clock.streamStartMs ??= Date.now();
    let sent = 0;
    for (const [i, chunk] of chunks.entries()) {
      if (turn.cancelled) return;
      this.emitter.totalTokens += estimateTokens(chunk);
      this.emitter.update(
        {
          sessionUpdate: thought ? "agent_thought_chunk" : "agent_message_chunk",
          content: { type: "text", text: chunk },
        },
        i,
      );
      sent++;
      if (this.host.env.crashAfterChunks !== undefined && sent >= this.host.env.crashAfterChunks) {
        this.host.crash();
      }
      const pause = i === 0 && firstPauseMs > 0 ? firstPauseMs : this.host.env.chunkDelayMs;
      if (i < chunks.length - 1 && !(await this.sleep(turn, pause))) return;
    }
  }

  /**
   * One MCP tool call as prepare_tool_call / send_tool_call_start / the permission gate / the
   * tool run do it (session/acp_session_impl/tool_calls.rs, xai-grok-mcp servers.rs `run`,
   * session/acp_conversion.rs `acp_tool_update`): `tool_call` (title = the wire name, kind
   * other, pending, rawInput = the parsed arguments), `tool_call_update` with the serialized
   * ToolInput `{variant:"MCPTool", tool_name, tool_input}`, then — unless a `[permission]` allow
   * rule matches or the session is in yolo or auto mode — the owner's permission
   * (pending_interaction, `session/request_permission` to every subscriber,
   * interaction_resolved), then the call. A deny rule wins over yolo (permission/manager/mod.rs:
   * the policy deny is enforced before the YOLO fast path). Returns the sentence the reply
   * carries.
   */
  private async mcpToolCall(turn: RunningTurn, call: ToolCallLine): Promise<string> {
    const id = toolCallId();
    this.toolCalls++;
    let args: unknown;
    let parseError: string | undefined;
    try {
      args = call.arguments === "" ? {} : JSON.parse(call.arguments);
    } catch (err) {
      parseError = err instanceof Error ? err.message : String(err);
    }
    const first: Record<string, unknown> = {
      sessionUpdate: "tool_call",
      toolCallId: id,
      title: call.name,
      kind: "other",
      status: "pending",
    };
    if (parseError === undefined) first.rawInput = args;
    this.emitter.update(first);
    if (parseError !== undefined) {
      return this.toolFailed(id, call.name, `invalid tool arguments: ${parseError}`);
    }
    if (!this.mcp.has(call.name)) {
      return this.toolFailed(id, call.name, `Tool not found: ${call.name}`);
    }
    const rawInput = { variant: "MCPTool", tool_name: call.name, tool_input: args };
    const display = { toolCallId: id, title: call.name, kind: "other", rawInput };
    this.emitter.update({ sessionUpdate: "tool_call_update", ...display });
    const decision: RuleAction | undefined = mcpDecision(this.rules, call.name);
    if (decision === "deny") {
      return this.notExecuted(
        id,
        `Tool \`${call.name}\` was not executed: denied by a permission rule`,
      );
    }
    // Yolo approves unasked; auto's classifier is simulated as allowing (permissions.ts).
    if (decision !== "allow" && !this.yoloMode && !this.autoMode) {
      const res = await this.interaction(turn, id, "permission", "session/request_permission", {
        sessionId: this.id,
        toolCall: display,
        options: PERMISSION_OPTIONS,
      });
      const outcome = field(res === "cancelled" ? undefined : res.result, "outcome");
      const allowed =
        field(outcome, "outcome") === "selected" &&
        str(field(outcome, "optionId"))?.startsWith("allow") === true;
      if (!allowed) {
        return this.notExecuted(id, `The user rejected the permission for tool \`${call.name}\``);
      }
    }
    const args2 = isRecord(args) ? args : undefined;
    const result = await this.mcp.call(call.name, args2);
    const [server, tool] = [call.name.split("__")[0] ?? "", call.name.split("__")[1] ?? ""];
    if (result.kind === "error") return this.toolFailed(id, call.name, result.message);
    const output = result.isError ? { Error: result.text } : { OkayOutput: result.text };
    const rawOutput: Record<string, unknown> = {
      type: "MCP",
      tool_name: tool,
      server_name: server,
      output,
    };
    if (result.isError) rawOutput.is_error = true;
    this.emitter.update({
      sessionUpdate: "tool_call_update",
      toolCallId: id,
      status: result.isError ? "failed" : "completed",
      rawOutput,
    });
    return result.isError
      ? `The tool ${call.name} returned an error: ${result.text}`
      : `The tool ${call.name} returned: ${result.text}`;
  }

  /** handle_tool_error: failed, the message as text content, rawOutput tool_execution_failed. */
  private toolFailed(id: string, name: string, error: string): string {
    const message = `Tool \`${name}\` failed: ${error}`;
    this.emitter.update({
      sessionUpdate: "tool_call_update",
      toolCallId: id,
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: message } }],
      rawOutput: { error: "tool_execution_failed", message: error },
    });
    return message;
  }

  /** handle_tool_not_executed: failed with the reason as text content. */
  private notExecuted(id: string, reason: string): string {
    this.emitter.update({
      sessionUpdate: "tool_call_update",
      toolCallId: id,
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: reason } }],
    });
    return reason;
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
      options: PERMISSION_OPTIONS,
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

const PERMISSION_OPTIONS = [
  { optionId: "allow-once", name: "Yes, proceed", kind: "allow_once" },
  {
    optionId: "reject-once",
    name: "No, and tell Grok what to do differently",
    kind: "reject_once",
  },
];

function toolCallId(): string {
  return `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
