/**
 * The agent the leader hosts in-process (agent/mvp_agent): it reads one JSON-RPC line at a time
 * from the leader and writes lines back. Requests get responses with the id they came with (the
 * leader's namespaced string), reverse requests (permission, questions, fs) use the agent's own
 * integer ids, and the first response to a reverse request wins.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { isAbsolute } from "node:path";
import type { SimEnv } from "../env.js";
import { gitRoot } from "../fs.js";
import { field, has, isRecord, type JsonRecord, parseJson, str, u64 } from "../json.js";
import { trace } from "../trace.js";
import { authenticate, authMethods } from "./auth-methods.js";
import { parseUpdatesRequest, recordedPromptCount, sessionUpdates } from "./bulk-updates.js";
import {
  DEFAULT_MODEL_ID,
  type Effort,
  effectiveEffort,
  findModel,
  modelState,
  parseEffort,
  sessionConfigOptions,
} from "./catalog.js";
import { loadConfig, type SimConfig } from "./config.js";
import {
  clientMcpServers,
  mcpListServers,
  mergeSessionMcpServers,
  type SessionMcpServer,
} from "./mcp.js";
import {
  applyAttachModes,
  applyYoloModeChanged,
  launchModeDefaults,
  requestedModes,
} from "./permissions.js";
import {
  agentSystemPrompt,
  harnessesCompatible,
  promptOverride,
  spawnSystemPrompt,
} from "./persona.js";
import { activePluginServers, mcpServerOwners } from "./plugins.js";
import { versionPreset } from "./preset.js";
import { lineParams, prepareReplay } from "./replay.js";
import {
  errorResponse,
  internalError,
  invalidParams,
  METHOD_NOT_FOUND,
  notification,
  RawResult,
  RpcFailure,
  rawResponse,
  request,
  response,
  SESSION_NOT_FOUND,
  unknownExtMethod,
} from "./rpc.js";
import { SerdeStruct } from "./serde.js";
import { promptUsageJson, type ReverseCall, Session, type SessionHost } from "./session.js";
import { sessionInfo, sessionInfoRequestId } from "./session-info.js";
import { addSkillPath, listSkills } from "./skills.js";
import { SessionStore } from "./store.js";
import type { UpdateSink } from "./updates.js";

export interface AgentOptions {
  env: SimEnv;
  /** The leader process's launch cwd (initialize `_meta.currentWorkingDirectory`). */
  launchCwd: string;
  /** One line to the leader's routing loop. */
  emit(line: string): void;
  crash(): void;
}

type Params = JsonRecord;

const UUID_RE =
  /^(urn:uuid:)?\{?[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}\}?$/;

export class SimAgent implements SessionHost, UpdateSink {
  readonly env: SimEnv;
  readonly sink: UpdateSink = this;
  private readonly opts: AgentOptions;
  private readonly sessions = new Map<string, Session>();
  private readonly outgoing = new Map<
    number,
    (msg: { result?: unknown; error?: unknown } | "cancelled") => void
  >();
  private nextRequestId = 0;
  private eventCounter = 0;
  private initialized = false;
  /** The first `initialize` request's `_meta` (acp_agent.rs OnceLock: later ones are ignored). */
  private initMeta: unknown;
  private initMetaSet = false;
  private readonly preset = versionPreset();
  private currentModelId = DEFAULT_MODEL_ID;
  private readonly instanceId = randomUUID();
  private config: SimConfig = loadConfig();
  /** The config's permission mode, read once at leader start (permissions.ts). */
  private readonly modeDefaults = launchModeDefaults();

  constructor(opts: AgentOptions) {
    this.opts = opts;
    this.env = opts.env;
    const configured = this.config.defaultModel;
    if (configured !== undefined && findModel(configured) !== undefined)
      this.currentModelId = configured;
  }

  get busy(): boolean {
    for (const s of this.sessions.values()) if (s.busy) return true;
    return false;
  }

  /** One line from the leader (the IPC -> agent bridge appends the newline; we get the line). */
  receive(line: string): void {
    trace("agent_in", { line });
    const msg = parseJson(line);
    if (!isRecord(msg)) return;
    const method = str(msg.method);
    if (method !== undefined) {
      const params = unwrap(method, msg.params);
      if (has(msg, "id")) void this.request(msg.id, method, params);
      else this.notify(method, params);
      return;
    }
    const id = u64(msg.id);
    const settle = id === undefined ? undefined : this.outgoing.get(id);
    if (id !== undefined && settle !== undefined) {
      this.outgoing.delete(id);
      settle({ result: msg.result, error: msg.error });
    }
  }

  // ---- SessionHost / UpdateSink -------------------------------------------------------------

  emit(line: string): void {
    this.opts.emit(line);
  }

  emitLine(line: string, ack: boolean): void {
    if (ack && this.env.ackDelayMs > 0) setTimeout(() => this.opts.emit(line), this.env.ackDelayMs);
    else this.opts.emit(line);
  }

  nextEventId(sessionId: string): string {
    return `${sessionId}-${this.eventCounter++}`;
  }

  reverseRequest(method: string, params: unknown): ReverseCall {
    const id = this.nextRequestId++;
    let settle: (msg: { result?: unknown; error?: unknown } | "cancelled") => void = () => {};
    const promise = new Promise<{ result?: unknown; error?: unknown } | "cancelled">((resolve) => {
      settle = resolve;
    });
    this.outgoing.set(id, settle);
    this.opts.emit(request(id, method, params));
    return {
      promise,
      cancel: () => {
        if (this.outgoing.delete(id)) settle("cancelled");
      },
    };
  }

  combineQueuedPrompts(): boolean {
    return this.config.combineQueuedPrompts;
  }

  rosterChanged(session: Session, activity: string): void {
    this.opts.emit(
      notification("_x.ai/sessions/changed", {
        upserted: [this.rosterEntry(session, activity, true)],
        removed: [],
      }),
    );
  }

  crash(): void {
    this.opts.crash();
  }

  // ---- dispatch -----------------------------------------------------------------------------

  private async request(id: unknown, method: string, params: Params): Promise<void> {
    try {
      const result = await this.handle(method, params, id);
      if (result === undefined) return;
      const line = result instanceof RawResult ? rawResponse(id, result) : response(id, result);
      this.emitLine(line, method === "session/prompt");
    } catch (err) {
      const error = err instanceof RpcFailure ? err.error : internalError(String(err));
      this.emitLine(errorResponse(id, error), method === "session/prompt");
    }
  }

  private async handle(method: string, p: Params, id: unknown): Promise<unknown> {
    if (method.startsWith("_") && this.preset.lacks.has(method.slice(1))) {
      throw new RpcFailure(unknownExtMethod(method.slice(1)));
    }
    switch (method) {
      case "initialize":
        return this.initialize(p);
      case "authenticate":
        return authenticate(p.methodId);
      case "session/new":
        return this.newSession(p);
      case "session/load":
        return this.attach(p, "load");
      case "session/resume":
        return this.attach(p, "resume");
      case "session/prompt":
        return this.prompt(p, id);
      case "session/set_model":
        return this.setModel(p);
      case "session/set_mode":
        return this.setMode(p);
      case "session/close":
        return this.close(p);
      case "session/list":
        return {
          sessions: [...this.sessions.values()].map((s) => ({ sessionId: s.id, cwd: s.cwd })),
        };
      case "_x.ai/models/list":
        return { result: modelState(this.currentModelId) };
      case "_x.ai/mcp/list":
        return this.mcpList(p);
      case "_x.ai/session/info":
        return this.sessionInfo(p);
      case "_x.ai/session/updates":
        return this.sessionUpdates(p);
      case "_x.ai/session/update_mcp_servers":
        return this.updateMcpServers(p);
      case "_x.ai/skills/list":
        return this.skillsList(p);
      case "_x.ai/skills/add":
        return this.skillsAdd(p);
      case "_x.ai/sessions/list":
        return {
          result: {
            sessions: [...this.sessions.values()].map((s) => this.rosterEntry(s, s.activity, true)),
          },
        };
      default:
        throw new RpcFailure(
          method.startsWith("_") ? unknownExtMethod(method.slice(1)) : METHOD_NOT_FOUND,
        );
    }
  }

  private notify(method: string, p: Params): void {
    switch (method) {
      case "session/cancel": {
        const session = this.sessions.get(str(p.sessionId) ?? "");
        session?.cancel(str(field(p._meta, "cancelTrigger")));
        return;
      }
      case "_x.ai/queue/remove": {
        const session = this.sessions.get(str(p.sessionId) ?? "");
        const id = str(p.id);
        if (session === undefined || id === undefined) return;
        session.removeQueued(
          id,
          u64(p.expectedVersion) ?? 0,
          str(p.owner) ?? str(p.clientIdentifier),
        );
        return;
      }
      case "_x.ai/queue/clear": {
        this.sessions
          .get(str(p.sessionId) ?? "")
          ?.clearQueue(str(p.owner) ?? str(p.clientIdentifier));
        return;
      }
      case "_x.ai/yolo_mode_changed":
      case "x.ai/yolo_mode_changed": {
        for (const session of this.sessions.values()) {
          if (applyYoloModeChanged(session, p)) this.rosterChanged(session, session.activity);
        }
        return;
      }
      case "_x.ai/internal/evict_sessions": {
        const ids = Array.isArray(p.sessionIds) ? p.sessionIds : [];
        for (const sid of ids) {
          const session = typeof sid === "string" ? this.sessions.get(sid) : undefined;
          if (session === undefined || session.busy) continue;
          this.sessions.delete(session.id);
          session.store.flush();
          session.mcp.closeAll();
          this.opts.emit(
            notification("_x.ai/sessions/changed", {
              upserted: [this.rosterEntry(session, "dormant", false)],
              removed: [],
            }),
          );
        }
        return;
      }
      default:
        return;
    }
  }

  // ---- methods ------------------------------------------------------------------------------

  private initialize(p: Params): unknown {
    if (typeof p.protocolVersion !== "number") {
      throw new RpcFailure(invalidParams("missing field `protocolVersion`"));
    }
    this.initialized = true;
    if (!this.initMetaSet) {
      this.initMetaSet = true;
      this.initMeta = p._meta;
    }
    this.config = loadConfig();
    const auth = authMethods();
    return {
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
        sessionCapabilities: { close: {}, list: {}, resume: {} },
        _meta: {
          "x.ai/fs_notify": true,
          "x.ai/hooks": {
            blockingEvents: ["PreToolUse", "UserPromptSubmit"],
            decisions: ["allow", "deny", "ask"],
            stopSignals: ["Stop"],
          },
          "x.ai/capabilities": {
            toolOverrides: {
              x_keyword_search: true,
              x_semantic_search: true,
              x_user_search: false,
              x_thread_fetch: false,
            },
          },
        },
      },
      authMethods: auth.methods,
      _meta: {
        grokShell: true,
        ...(auth.defaultId === undefined ? {} : { defaultAuthMethodId: auth.defaultId }),
        "x.ai/mcp/sdk": true,
        "x.ai/pluginDirs": true,
        currentWorkingDirectory: this.opts.launchCwd,
        agentVersion: this.preset.agentVersion ?? this.env.agentVersion,
        agentId: "grok-sim",
        agentInstanceId: this.instanceId,
        hostname: hostname(),
        modelState: modelState(this.currentModelId),
        mcpServers: [],
        mcpApps: field(p._meta, "mcpApps") === true,
        metadata: agentMetadata(),
        availableCommands: [],
        cancelRewind: false,
        sessionRecap: true,
        voiceMode: false,
      },
    };
  }

  private requireInit(what: string): void {
    if (!this.initialized)
      throw new RpcFailure(invalidParams(`initialize must be called before ${what}`));
  }

  /**
   * The ACP schema's required fields, reported like serde_json (the ACP crate answers a params
   * deserialization failure with invalid params and the serde text): absent fields in
   * declaration order, at the closing brace.
   */
  private requireFields(p: Params, fields: readonly string[]): void {
    for (const f of fields) {
      if (!Object.hasOwn(p, f)) {
        throw new RpcFailure(invalidParams(new SerdeStruct(p).missing(f).message));
      }
    }
  }

  private absoluteCwd(p: Params): string {
    const cwd = str(p.cwd);
    if (cwd === undefined) throw new RpcFailure(invalidParams("missing field `cwd`"));
    if (!isAbsolute(cwd))
      throw new RpcFailure(invalidParams(`cwd must be an absolute path: ${cwd}`));
    return cwd;
  }

  /**
   * resolve_mcp_servers against the config and the shared plugin registry as they are on disk
   * now (mcp.ts, plugins.ts: a session's `_meta.pluginDirs` bring no server).
   */
  private resolveMcpServers(list: unknown): SessionMcpServer[] {
    this.config = loadConfig();
    const plugin = activePluginServers();
    return mergeSessionMcpServers(this.config, clientMcpServers(this.config, list), plugin);
  }

  /**
   * SessionCommand::Initialize for a session spawned with an empty history
   * (agent_ops.rs): the spawn system prompt goes to system_prompt.txt and the conversation head.
   * The actor runs it after the spawn request has been answered, hence on the next tick.
   */
  private initializeSystemPrompt(session: Session, sessionMeta: unknown): void {
    const prompt = spawnSystemPrompt(sessionMeta, this.initMeta, session.agentType);
    session.systemHead = prompt;
    setImmediate(() => {
      session.store.saveSystemPrompt(prompt);
      session.store.saveChatHead(prompt);
    });
  }

  /** handle_replace_system_prompt: head and system_prompt.txt (even when the head matched). */
  private replaceSystemPrompt(session: Session, prompt: string): void {
    session.systemHead = prompt;
    session.store.saveChatHead(prompt);
    session.store.saveSystemPrompt(prompt);
  }

  /** Drain every session's persistence merge buffer (graceful stop). */
  flushPersistence(): void {
    for (const session of this.sessions.values()) session.store.flush();
  }

  private newSession(p: Params): unknown {
    // NewSessionRequest: cwd, mcpServers (both required).
    this.requireFields(p, ["cwd", "mcpServers"]);
    this.requireInit("new_session");
    const cwd = this.absoluteCwd(p);
    const meta = p._meta;
    const requested = field(meta, "sessionId");
    let id: string;
    if (typeof requested === "string") {
      if (!UUID_RE.test(requested)) {
        throw new RpcFailure(
          invalidParams(
            `Invalid UUID format for _meta.sessionId '${requested}': invalid character`,
          ),
        );
      }
      id = requested;
    } else {
      id = uuidV7();
    }
    const modelId = str(field(meta, "modelId")) || this.currentModelId;
    const model = findModel(modelId);
    if (model === undefined) throw new RpcFailure(invalidParams("unknown model id"));
    const store = new SessionStore(cwd, id);
    store.create(id, cwd, model.id);
    const mcpServers = this.resolveMcpServers(p.mcpServers);
    const session = new Session({
      id,
      cwd,
      modelId: model.id,
      effort: effectiveEffort(model, parseEffort(field(meta, "reasoningEffort"))),
      mcpServers,
      agentType: model.agentType,
      store,
      host: this,
    });
    const modes = requestedModes(meta, this.modeDefaults);
    session.yoloMode = modes.yolo;
    session.autoMode = modes.auto;
    session.originClient = str(field(meta, "clientIdentifier"));
    void session.setMcpServers(mcpServers);
    this.initializeSystemPrompt(session, meta);
    this.sessions.set(id, session);
    this.rosterChanged(session, "idle");
    const root = gitRoot(cwd) ?? null;
    return {
      sessionId: id,
      models: modelState(session.modelId),
      _meta: {
        currentWorkingDirectory: cwd,
        codebaseIndexed: [],
        isGitRepo: root !== null,
        gitRoot: root,
        showNonGitWarning: false,
        feedbackEnabled: false,
        ...this.sessionConfigMeta(session),
      },
    };
  }

  private sessionConfigMeta(session: Session): Record<string, unknown> {
    return {
      "x.ai/sessionConfig": { options: sessionConfigOptions(session.modelId, session.effort) },
      "x.ai/sessionDetail": {
        sessionId: session.id,
        kind: "build",
        cwd: session.cwd,
        currentModelId: session.modelId,
      },
    };
  }

  /** attach_session for session/load (replay unless noReplay) and session/resume (no replay). */
  private async attach(p: Params, op: "load" | "resume"): Promise<unknown> {
    // LoadSessionRequest declares mcpServers (required), cwd, sessionId; ResumeSessionRequest
    // sessionId, cwd and a defaulted mcpServers (absent = []).
    this.requireFields(
      p,
      op === "load" ? ["mcpServers", "cwd", "sessionId"] : ["sessionId", "cwd"],
    );
    this.requireInit("load_session");
    const sid = str(p.sessionId);
    if (sid === undefined) throw new RpcFailure(invalidParams("missing field `sessionId`"));
    const cwd = this.absoluteCwd(p);
    const meta = p._meta;
    const store = new SessionStore(cwd, sid);
    const summary = store.readSummary();
    if (summary === undefined) throw new RpcFailure(SESSION_NOT_FOUND);
    const noReplay = op === "resume" || field(meta, "noReplay") === true;
    const target = field(meta, "x.ai/leaderClientId");
    let session = this.sessions.get(sid);
    const resident = session !== undefined;
    if (session !== undefined && !noReplay) session.emitter.gatewayEnabled = false;
    // Reconnect: flush_session drains the persistence buffer before anything is read.
    session?.store.flush();
    let replayEnd = 0;
    let markReplay = true;
    if (!noReplay) {
      const contents = store.readUpdates();
      replayEnd = Buffer.byteLength(contents);
      const prepared = prepareReplay(contents, str(field(meta, "cursor")));
      markReplay = prepared.markReplay;
      if (prepared.maxEventSeq !== undefined) {
        this.eventCounter = Math.max(this.eventCounter, prepared.maxEventSeq + 1);
      }
      for (const line of prepared.lines) this.forwardReplayLine(line, target, markReplay);
    }
    const mcpServers = this.resolveMcpServers(p.mcpServers);
    const modes = requestedModes(meta, this.modeDefaults);
    if (session === undefined) {
      const model = findModel(summary.modelId ?? "") ?? findModel(this.currentModelId);
      const modelId = model?.id ?? DEFAULT_MODEL_ID;
      session = new Session({
        id: sid,
        cwd,
        modelId,
        effort:
          model === undefined
            ? undefined
            : effectiveEffort(model, parseEffort(field(meta, "reasoningEffort"))),
        mcpServers,
        agentType: model?.agentType ?? "grok-build",
        store,
        host: this,
        promptIndex: recordedPromptCount(store.readUpdates()),
      });
      session.yoloMode = modes.yolo;
      session.autoMode = modes.auto;
      session.originClient = str(field(meta, "clientIdentifier"));
      void session.setMcpServers(mcpServers);
      // spawn.rs: a loaded history keeps its system head (and re-saves it to
      // system_prompt.txt); an empty one is initialized like a new session, so rules from the
      // loading request or the first initialize apply to it.
      const head = store.readChatHead();
      if (head === undefined) this.initializeSystemPrompt(session, meta);
      else {
        const override = promptOverride(meta, this.initMeta);
        this.replaceSystemPrompt(session, override ?? head);
      }
      this.sessions.set(sid, session);
      this.rosterChanged(session, "idle");
    } else {
      // UpdateMcpServers with the merged list: config.toml servers stay whatever the client sent.
      void session.setMcpServers(mcpServers);
      if (applyAttachModes(session, modes)) this.rosterChanged(session, session.activity);
      // Only a full systemPromptOverride is synced on attach; `rules` never are.
      const override = promptOverride(meta, this.initMeta);
      if (override !== undefined) this.replaceSystemPrompt(session, override);
    }
    if (this.env.loadDelayMs > 0) await new Promise((r) => setTimeout(r, this.env.loadDelayMs));
    if (resident && !noReplay) {
      // session_setup.rs delta replay: flush_session again, then read past the first replay.
      session.store.flush();
      const contents = session.store.readUpdates();
      const delta = Buffer.from(contents).subarray(replayEnd).toString("utf8");
      for (const line of delta.split("\n")) {
        if (line.trim() !== "") this.forwardReplayLine(line, target, markReplay);
      }
      session.emitter.gatewayEnabled = true;
    }
    this.restoreModel(session, meta);
    const responseMeta: Record<string, unknown> = { sessionId: sid, codebaseIndexed: [] };
    const running = session.runningPromptId;
    if (running !== undefined) responseMeta["x.ai/runningPromptId"] = running;
    Object.assign(responseMeta, this.sessionConfigMeta(session));
    return { models: modelState(session.modelId), _meta: responseMeta };
  }

  /** forward_raw_replay_line: re-emit a stored update, stamped for the loading client. */
  private forwardReplayLine(line: string, target: unknown, markReplay: boolean): void {
    const env = parseJson(line);
    const method = str(field(env, "method")) ?? "session/update";
    const params = lineParams(env);
    if (!isRecord(params)) return;
    const meta = isRecord(params._meta) ? params._meta : {};
    params._meta = meta;
    if (markReplay) meta.isReplay = true;
    if (target !== undefined) meta["x.ai/leaderClientId"] = target;
    const wireMethod =
      method === "_x.ai/session/update" ? "_x.ai/session/update" : "session/update";
    this.opts.emit(notification(wireMethod, params));
  }

  private session(p: Params): Session {
    const session = this.sessions.get(str(p.sessionId) ?? "");
    if (session === undefined) throw new RpcFailure(invalidParams("unknown session id"));
    return session;
  }

  private async prompt(p: Params, requestId: unknown): Promise<unknown> {
    const session = this.session(p);
    const meta = p._meta;
    const schema = field(meta, "outputSchema");
    if (schema !== undefined && !isRecord(schema)) {
      throw new RpcFailure(
        invalidParams("outputSchema must be a JSON object describing a JSON Schema"),
      );
    }
    const promptId = str(field(meta, "promptId")) ?? randomUUID();
    const text = promptText(p.prompt);
    const owner = str(field(meta, "clientIdentifier"));
    const turnId = u64(field(meta, "turnId"));
    trace("prompt", { sessionId: session.id, promptId, requestId, text });
    const outcome = await session.prompt(promptId, text, owner, textBlocks(p.prompt));
    const responseMeta: Record<string, unknown> = {
      sessionId: session.id,
      requestId: promptId,
      promptId,
      totalTokens: outcome.kind === "removed" ? 0 : session.emitter.totalTokens,
      modelId: session.modelId,
    };
    if (outcome.kind !== "removed") {
      // build_prompt_response_meta: the last model call's tokens, then the whole prompt's usage.
      responseMeta.inputTokens = outcome.usage.inputTokens;
      responseMeta.outputTokens = outcome.usage.outputTokens;
      responseMeta.cachedReadTokens = 0;
      responseMeta.reasoningTokens = outcome.usage.reasoningTokens;
      responseMeta.usage = promptUsageJson(outcome.usage, session.modelId);
    }
    if (outcome.kind === "removed") return { stopReason: "cancelled", _meta: responseMeta };
    const complete: Record<string, unknown> = {
      sessionId: session.id,
      promptId,
      stopReason: outcome.kind === "error" ? "error" : outcome.stopReason,
      agentResult: outcome.kind === "error" ? outcome.message : null,
    };
    if (turnId !== undefined) complete.turnId = turnId;
    if (outcome.kind === "done" && outcome.cancelTrigger !== undefined) {
      complete.cancelTrigger = outcome.cancelTrigger;
    }
    this.opts.emit(notification("_x.ai/session/prompt_complete", complete));
    if (outcome.kind === "error") throw new RpcFailure(internalError(outcome.message));
    const resultMeta: Record<string, unknown> = { ...responseMeta };
    if (outcome.cancelTrigger !== undefined) resultMeta.cancelTrigger = outcome.cancelTrigger;
    return { stopReason: outcome.stopReason, _meta: resultMeta };
  }

  /**
   * handlers/model_switch.rs `apply`: unknown model is an error; an unusable effort is ignored.
   * A model whose harness (`agentType`) is incompatible with the session's active one is refused
   * once a turn has ended (MODEL_SWITCH_INCOMPATIBLE_AGENT, -32600) and rebuilds the harness
   * before the first turn (`handle_rebuild_agent_for_definition`: the new template replaces the
   * system head and system_prompt.txt, so `<human_rules>` are gone). A compatible switch to a
   * different model rewrites the conversation's system head to the agent template
   * (`handle_set_session_model` with apply_prompt_override) without touching
   * system_prompt.txt — the rules leave what the model sees while the file still shows them.
   */
  private setModel(p: Params): unknown {
    const modelId = str(p.modelId);
    const model = modelId === undefined ? undefined : findModel(modelId);
    if (model === undefined) throw new RpcFailure(invalidParams("unknown model id"));
    const session = this.session(p);
    const effort: Effort | undefined = effectiveEffort(
      model,
      parseEffort(field(p._meta, "reasoningEffort")),
    );
    const mismatch = !harnessesCompatible(session.agentType, model.agentType);
    if (mismatch && session.turns > 0) {
      throw new RpcFailure({
        code: -32600,
        message:
          `Cannot switch to model '${model.id}': it requires agent '${model.agentType}' but the ` +
          `active agent is '${session.agentType}'. Start a new session to use this model.`,
        data: {
          code: "MODEL_SWITCH_INCOMPATIBLE_AGENT",
          activeAgentType: session.agentType,
          requiredAgentType: model.agentType,
          modelId: model.id,
          suggestion: "start_new_session",
        },
      });
    }
    const gateOpen = session.emitter.gatewayEnabled;
    if (mismatch && gateOpen) {
      session.agentType = model.agentType;
      this.replaceSystemPrompt(session, agentSystemPrompt(model.agentType));
    } else if (gateOpen && session.modelId !== model.id) {
      session.systemHead = agentSystemPrompt(session.agentType);
      session.store.saveChatHead(session.systemHead);
    }
    session.modelId = model.id;
    session.effort = effort;
    this.broadcastModelChanged(session);
    return { _meta: { model: { Ok: model.id } } };
  }

  /**
   * broadcast_model_changed (handlers/model_switch.rs): to every subscriber of the session,
   * broadcast-only (no eventId, not persisted).
   */
  private broadcastModelChanged(session: Session): void {
    const update: Record<string, unknown> = {
      sessionUpdate: "model_changed",
      model_id: session.modelId,
    };
    if (session.effort !== undefined) update.reasoning_effort = session.effort;
    this.opts.emit(notification("_x.ai/session_notification", { sessionId: session.id, update }));
  }

  /**
   * session_setup.rs `restore_persisted_model`, run by EVERY attach (load and resume, resident or
   * not) just before the response: model_switch::apply with the session's model and the
   * request's `reasoningEffort` (else the session's), which broadcasts model_changed.
   */
  private restoreModel(session: Session, meta: unknown): void {
    const model = findModel(session.modelId);
    if (model === undefined) return;
    session.effort = effectiveEffort(
      model,
      parseEffort(field(meta, "reasoningEffort")) ?? session.effort,
    );
    this.broadcastModelChanged(session);
  }

  private setMode(p: Params): unknown {
    const session = this.session(p);
    const modeId = str(p.modeId) ?? "default";
    session.emitter.direct({ sessionUpdate: "current_mode_update", currentModeId: modeId });
    return {};
  }

  private close(p: Params): unknown {
    const sid = str(p.sessionId) ?? "";
    const session = this.sessions.get(sid);
    if (session !== undefined && !session.busy) {
      this.sessions.delete(sid);
      session.store.flush();
      session.mcp.closeAll();
    }
    return { _meta: { "x.ai/closeOutcome": session === undefined ? "not_resident" : "closed" } };
  }

  private mcpList(p: Params): unknown {
    this.config = loadConfig();
    const session = this.sessions.get(str(p.sessionId) ?? "");
    const live =
      session === undefined ? undefined : { servers: session.mcpServers, live: session.mcp };
    return { result: { servers: mcpListServers(this.config, live, mcpServerOwners()) } };
  }

  /**
   * `x.ai/session/update_mcp_servers {sessionId, mcpServers}` (extensions/session_admin.rs):
   * the list is merged with the config like any attach (`merge_managed_mcp_servers`) and
   * *replaces* the resident session's servers in memory; the answer waits until the new
   * handshakes finished. Nothing is written: the next load/resume of the session (the TUI's
   * reconnect) replaces the set again with the config plus that client's list.
   */
  private async updateMcpServers(p: Params): Promise<unknown> {
    this.requireFields(p, ["sessionId", "mcpServers"]);
    if (!Array.isArray(p.mcpServers)) {
      throw new RpcFailure(
        invalidParams(new SerdeStruct(p).invalidType("mcpServers", "a sequence").message),
      );
    }
    const session = this.sessions.get(str(p.sessionId) ?? "");
    if (session === undefined) throw new RpcFailure(invalidParams("unknown session id"));
    await session.setMcpServers(this.resolveMcpServers(p.mcpServers));
    return { result: { ok: true } };
  }

  /** `x.ai/skills/list {cwd}` (extensions/skills.rs): `{"result":{"skills":[SkillInfo…]}}`. */
  private skillsList(p: Params): unknown {
    this.requireFields(p, ["cwd"]);
    const cwd = str(p.cwd);
    if (cwd === undefined) {
      throw new RpcFailure(
        invalidParams(new SerdeStruct(p).invalidType("cwd", "a string").message),
      );
    }
    return { result: { skills: listSkills(cwd) } };
  }

  /** `x.ai/skills/add {path, cwd?}`: adds the path to `[skills] paths` of config.toml. */
  private skillsAdd(p: Params): unknown {
    this.requireFields(p, ["path"]);
    const path = str(p.path);
    if (path === undefined) {
      throw new RpcFailure(
        invalidParams(new SerdeStruct(p).invalidType("path", "a string").message),
      );
    }
    return { result: addSkillPath(path, str(p.cwd)) };
  }

  /** handle_session_info: the named resident session, else the first resident one, else {}. */
  private sessionInfo(p: Params): unknown {
    const requested = sessionInfoRequestId(p);
    const sid = requested ?? this.sessions.keys().next().value;
    return sessionInfo(sid === undefined ? undefined : this.sessions.get(sid));
  }

  /** x.ai/session/updates: chunks (stream mode) go out before the raw answer. */
  private sessionUpdates(p: Params): RawResult {
    const answer = sessionUpdates(parseUpdatesRequest(p));
    for (const line of answer.chunks) this.opts.emit(line);
    return new RawResult(answer.raw);
  }

  private rosterEntry(
    session: Session,
    activity: string,
    resident: boolean,
  ): Record<string, unknown> {
    const entry: Record<string, unknown> = {
      sessionId: session.id,
      title: null,
      cwd: session.cwd,
      isWorktree: false,
      modelId: session.modelId,
    };
    if (session.effort !== undefined) entry.reasoningEffort = session.effort;
    Object.assign(entry, {
      yolo: session.yoloMode,
      activity,
      resident,
      lastChangeUnixMs: Date.now(),
      origin: { kind: "local" },
    });
    return entry;
  }
}

/** The gateway-wrapped ext form `{"method":"_x.ai/foo","params":{"method":"x.ai/foo","params":{}}}`. */
function unwrap(method: string, params: unknown): Params {
  if (
    method.startsWith("_") &&
    isRecord(params) &&
    typeof params.method === "string" &&
    isRecord(params.params)
  ) {
    return params.params;
  }
  return isRecord(params) ? params : {};
}

/** The text blocks of a prompt as sent (the user echo repeats each one). */
function textBlocks(blocks: unknown): string[] {
  if (!Array.isArray(blocks)) return [];
  const out: string[] = [];
  for (const b of blocks) {
    const text = field(b, "type") === "text" ? str(field(b, "text")) : undefined;
    if (text !== undefined) out.push(text);
  }
  return out;
}

/** queue_text_from_blocks: trimmed text blocks joined by a blank line. */
function promptText(blocks: unknown): string {
  if (!Array.isArray(blocks)) return "";
  return blocks
    .map((b) => (field(b, "type") === "text" ? (str(field(b, "text")) ?? "").trim() : ""))
    .filter((t) => t !== "")
    .join("\n\n");
}

function agentMetadata(): unknown {
  const raw = process.env.GROK_AGENT_METADATA;
  if (raw === undefined) return null;
  const parsed = parseJson(raw);
  return isRecord(parsed) ? parsed : null;
}

/** uuid::Uuid::now_v7(): 48-bit ms timestamp, version 7, variant 10, random rest. */
function uuidV7(): string {
  const bytes = Buffer.from(randomUUID().replaceAll("-", ""), "hex");
  const ms = BigInt(Date.now());
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const h = bytes.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
