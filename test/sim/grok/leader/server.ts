/**
 * The leader's routing loop (leader/server.rs run_leader_server): accepts connections, hands
 * client ACP payloads to the in-process agent with namespaced request ids and injected `_meta`,
 * and routes every agent line back — responses to their requester, session notifications to the
 * session's subscribers (live ones buffered while that client's load is in flight), replay lines
 * to the loader only, interaction requests to all subscribers (cached for late joiners),
 * driver-only reverse requests to the driver, machine-wide notifications to everyone, the rest
 * to the last active stdio client. Subagent child-session routing is not simulated (the
 * simulated agent never spawns subagents).
 */
import { createServer, type Server, type Socket } from "node:net";
import { parseJson } from "../json.js";
import { trace } from "../trace.js";
import {
  acpEnvelope,
  type ClientMessage,
  type ControlCommand,
  type ControlResult,
  controlResult,
  type LeaderMetadata,
  leaderInfo,
  SHUTDOWN,
  shuttingDown,
  workspaceStatusNone,
} from "../wire.js";
import { Connection, type ConnectionHost } from "./connection.js";
import {
  eventSeqOf,
  extractAutoModeChange,
  extractInteractionResolvedToolCallId,
  extractInteractionToolCallId,
  extractModelIdFromSetModel,
  extractSessionId,
  extractSessionIdFromPromptComplete,
  extractSessionIdFromResult,
  extractTargetClientId,
  extractYoloModeChange,
  injectClientIdentityIntoInitialize,
  injectClientIdentityIntoYoloNotification,
  injectSessionRequestContext,
  isInteractionRequest,
  isMachineWideBroadcast,
  isScheduledTaskInjectPrompt,
  isSessionAttachRequest,
  leaderIsOlderThan,
  makeLeaderStartingError,
  makeVersionMismatchNotification,
  parseResponseId,
  patchInitializeResponseModel,
  rewriteRequestId,
} from "./routing.js";

const MAX_BUFFERED_LIVE_PER_LOAD = 4096;
const RELAUNCH_GRACE_MS = 5000;
const RELAUNCH_TOTAL_GRACE_MS = 10000;

export interface LeaderServerOptions {
  socketPath: string;
  metadata: LeaderMetadata;
  /** What client_version is compared against (VERSION_WITH_COMMIT, or "unknown"). */
  buildVersion: string;
  registrationTimeoutMs: number;
  legacyRegistered: boolean;
  earlyRead: boolean;
  noExitOnDisconnect: boolean;
  /** Fault: pid reported by get_leader_info instead of the real one. */
  reportedPid: number;
  /** Fault: close a non-TUI client's connection right after reading its session/prompt. */
  dropAfterPrompt: number;
  /** Fault: after a non-TUI client's session/prompt, lose every frame to it; close at the answer. */
  loseAcksAfterPrompt: number;
  /** Fault: after a non-TUI client's session/prompt, end our write side (FIN), keep reading. */
  halfCloseAfterPrompt: number;
  toAgent(line: string): void;
  agentBusy(): boolean;
  /** The server loop ended: graceful exit (socket already unlinked). */
  onExit(reason: "auto_update" | "manual" | "all_clients_gone"): void;
}

interface ClientState {
  conn: Connection;
  registered: boolean;
  initializeSeen: boolean;
  patchInitializeModel: boolean;
}

interface Buffered {
  payload: string;
  seq: number | undefined;
}

let nextClientId = 1;

export class LeaderServer implements ConnectionHost {
  readonly binaryVersion: string;
  readonly registrationTimeoutMs: number;
  readonly legacyRegistered: boolean;
  readonly earlyRead: boolean;
  private ready = false;
  private readonly readyWaiters: Array<() => void> = [];
  private readonly clients = new Map<number, ClientState>();
  private readonly sessionDriver = new Map<string, number>();
  private readonly sessionSubscribers = new Map<string, Set<number>>();
  private readonly pendingLoadByReq = new Map<string, { client: number; sid: string }>();
  private readonly loadLiveBuffer = new Map<string, Buffered[]>();
  private readonly loadReplayMaxSeq = new Map<string, number>();
  private readonly interactionRequests = new Map<string, Map<string, string>>();
  private lastActiveClient: number | undefined;
  private hadClients = false;
  private pendingRequests = 0;
  private relaunching = false;
  private dropsLeft: number;
  private loseAcksLeft: number;
  private halfClosesLeft: number;
  /** Namespaced prompt request id -> client whose connection closes when it is answered. */
  private readonly closeOnAnswer = new Map<string, number>();
  private stopped = false;
  private readonly server: Server;
  private readonly opts: LeaderServerOptions;

  constructor(opts: LeaderServerOptions) {
    this.opts = opts;
    this.binaryVersion = opts.metadata.binaryVersion;
    this.registrationTimeoutMs = opts.registrationTimeoutMs;
    this.legacyRegistered = opts.legacyRegistered;
    this.earlyRead = opts.earlyRead;
    this.dropsLeft = opts.dropAfterPrompt;
    this.loseAcksLeft = opts.loseAcksAfterPrompt;
    this.halfClosesLeft = opts.halfCloseAfterPrompt;
    this.server = createServer((socket) => this.accept(socket));
  }

  /** UnixListener::bind: the socket inherits the process umask; no chmod (transport.rs). */
  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.opts.socketPath, () => {
        this.server.off("error", reject);
        resolve();
      });
    });
  }

  /** The listening fd, kept even when an imposter unlinks the path (fault switch). */
  get listening(): boolean {
    return this.server.listening;
  }

  setReady(): void {
    if (this.ready) return;
    this.ready = true;
    for (const cb of this.readyWaiters.splice(0)) cb();
  }

  isReady(): boolean {
    return this.ready;
  }

  onReady(cb: () => void): void {
    if (this.ready) cb();
    else this.readyWaiters.push(cb);
  }

  get agentBusyFromIpc(): boolean {
    return this.pendingRequests > 0;
  }

  private accept(socket: Socket): void {
    if (this.stopped) {
      socket.destroy();
      return;
    }
    this.hadClients = true;
    const id = nextClientId++;
    const conn = new Connection(id, socket, this);
    this.clients.set(id, {
      conn,
      registered: false,
      initializeSeen: false,
      patchInitializeModel: false,
    });
  }

  registered(conn: Connection): void {
    const client = this.clients.get(conn.clientId);
    if (client === undefined) return;
    client.registered = true;
    const cv = conn.capabilities.client_version;
    if (cv !== null) {
      const note = makeVersionMismatchNotification(cv, this.opts.buildVersion);
      if (note !== undefined) conn.send(acpEnvelope(note));
    }
  }

  disconnected(conn: Connection): void {
    const id = conn.clientId;
    if (!this.clients.delete(id)) return;
    for (const [key, v] of this.pendingLoadByReq)
      if (v.client === id) this.pendingLoadByReq.delete(key);
    for (const key of [...this.loadLiveBuffer.keys()])
      if (key.startsWith(`${id} `)) this.loadLiveBuffer.delete(key);
    for (const key of [...this.loadReplayMaxSeq.keys()])
      if (key.startsWith(`${id} `)) this.loadReplayMaxSeq.delete(key);
    const detached: string[] = [];
    for (const [sid, subs] of [...this.sessionSubscribers]) {
      if (!subs.has(id)) continue;
      subs.delete(id);
      if (subs.size === 0) {
        this.sessionSubscribers.delete(sid);
        this.sessionDriver.delete(sid);
        detached.push(sid);
      } else if (this.sessionDriver.get(sid) === id) {
        const next = subs.values().next();
        if (next.done) this.sessionDriver.delete(sid);
        else this.sessionDriver.set(sid, next.value);
      }
    }
    if (this.lastActiveClient === id) this.lastActiveClient = undefined;
    if (detached.length > 0) {
      this.opts.toAgent(
        JSON.stringify({
          jsonrpc: "2.0",
          method: "_x.ai/internal/evict_sessions",
          params: { sessionIds: detached },
        }),
      );
    }
    if (this.clients.size === 0 && this.hadClients && !this.opts.noExitOnDisconnect) {
      void this.stop("all_clients_gone");
    }
  }

  message(conn: Connection, msg: Extract<ClientMessage, { type: "acp" | "control" }>): void {
    if (msg.type === "control") {
      this.control(conn, msg.request_id, msg.command);
      return;
    }
    this.acpFromClient(conn, msg.payload);
  }

  private acpFromClient(conn: Connection, payload: string): void {
    const id = conn.clientId;
    const json = parseJson(payload);
    let mutated = false;
    if (!this.ready) {
      const err = json === undefined ? undefined : makeLeaderStartingError(json);
      if (err !== undefined) conn.send(acpEnvelope(err));
      return;
    }
    const client = this.clients.get(id);
    if (client !== undefined && conn.mode === "stdio") this.lastActiveClient = id;
    const sid = json === undefined ? undefined : extractSessionId(json);
    if (sid !== undefined) {
      this.subscribers(sid).add(id);
      if (!this.sessionDriver.has(sid)) this.sessionDriver.set(sid, id);
    }
    if (json !== undefined && client !== undefined) {
      const yolo = extractYoloModeChange(json);
      if (yolo !== undefined) conn.capabilities.yolo_mode = yolo;
      const auto = extractAutoModeChange(json);
      if (auto !== undefined) conn.capabilities.auto_mode = auto;
      const model = extractModelIdFromSetModel(json);
      if (model !== undefined) conn.capabilities.default_model = model;
      if (!client.initializeSeen) {
        const [injected, wasInit] = injectClientIdentityIntoInitialize(json, conn.clientType);
        mutated ||= injected;
        if (wasInit) {
          client.initializeSeen = true;
          const dm = conn.capabilities.default_model;
          if (dm !== null && dm !== "") client.patchInitializeModel = true;
        }
      }
      mutated ||= injectSessionRequestContext(json, conn.capabilities, conn.clientType, id);
      mutated ||= injectClientIdentityIntoYoloNotification(json, conn.clientType);
    }
    const rewritten = json === undefined ? undefined : rewriteRequestId(json, id);
    mutated ||= rewritten !== undefined;
    if (json !== undefined && rewritten !== undefined && isSessionAttachRequest(json)) {
      const loadSid = extractSessionId(json);
      if (loadSid !== undefined) {
        this.pendingLoadByReq.set(rewritten.namespacedId, { client: id, sid: loadSid });
        const key = bufKey(id, loadSid);
        if (!this.loadLiveBuffer.has(key)) this.loadLiveBuffer.set(key, []);
      }
    }
    if (rewritten !== undefined) this.pendingRequests++;
    this.opts.toAgent(mutated && json !== undefined ? JSON.stringify(json) : payload);
    if (
      this.dropsLeft > 0 &&
      conn.clientType !== "grok-shell" &&
      json !== undefined &&
      rewritten !== undefined &&
      isPrompt(json)
    ) {
      this.dropsLeft--;
      trace("fault_drop_after_prompt", { client_id: id });
      conn.close();
      return;
    }
    const faultable =
      conn.clientType !== "grok-shell" && json !== undefined && rewritten !== undefined;
    if (faultable && this.loseAcksLeft > 0 && isPrompt(json)) {
      this.loseAcksLeft--;
      trace("fault_lose_acks", { client_id: id });
      conn.mute();
      this.closeOnAnswer.set(rewritten.namespacedId, id);
    } else if (faultable && this.halfClosesLeft > 0 && isPrompt(json)) {
      this.halfClosesLeft--;
      trace("fault_half_close", { client_id: id });
      conn.halfClose();
    }
  }

  /** One line the agent wrote (LeaderServerPoll::Response). */
  fromAgent(payload: string): void {
    if (this.stopped) return;
    const json = parseJson(payload);
    const parsed = json === undefined ? undefined : parseResponseId(json);
    if (parsed !== undefined) {
      this.pendingRequests = Math.max(0, this.pendingRequests - 1);
      const client = this.clients.get(parsed.clientId);
      if (client !== undefined && json !== undefined) {
        this.routeResponse(client, parsed.namespacedId, json);
        if (this.closeOnAnswer.delete(parsed.namespacedId)) {
          trace("fault_lose_acks_close", { client_id: parsed.clientId });
          client.conn.close();
        }
        return;
      }
    }
    if (json !== undefined && isMachineWideBroadcast(json)) {
      for (const c of this.clients.values()) c.conn.send(acpEnvelope(payload));
      return;
    }
    const target = json === undefined ? undefined : extractTargetClientId(json);
    if (target !== undefined) {
      const client = this.clients.get(target);
      if (client !== undefined) {
        const sid = extractSessionId(json);
        const seq = eventSeqOf(json);
        client.conn.send(acpEnvelope(payload));
        if (sid !== undefined && seq !== undefined) {
          const key = bufKey(target, sid);
          this.loadReplayMaxSeq.set(key, Math.max(this.loadReplayMaxSeq.get(key) ?? 0, seq));
        }
      }
      return;
    }
    const sid =
      json === undefined
        ? undefined
        : (extractSessionId(json) ?? extractSessionIdFromPromptComplete(json));
    if (sid !== undefined && json !== undefined) {
      const tcid = extractInteractionResolvedToolCallId(json);
      const cache = this.interactionRequests.get(sid);
      if (tcid !== undefined && cache !== undefined) {
        cache.delete(tcid);
        if (cache.size === 0) this.interactionRequests.delete(sid);
      }
    }
    const isReverseRequest = json !== undefined && hasKey(json, "id") && hasKey(json, "method");
    const isInjectPrompt = json !== undefined && isScheduledTaskInjectPrompt(json);
    const isInteraction = isReverseRequest && isInteractionRequest(json);
    if (isInteraction && sid !== undefined) {
      const tcid = extractInteractionToolCallId(json);
      if (tcid !== undefined) {
        let cache = this.interactionRequests.get(sid);
        if (cache === undefined) {
          cache = new Map();
          this.interactionRequests.set(sid, cache);
        }
        cache.set(tcid, payload);
      }
    }
    if (sid !== undefined && this.sessionSubscribers.has(sid)) {
      if ((isReverseRequest && !isInteraction) || isInjectPrompt) {
        const driver = this.sessionDriver.get(sid);
        const client = driver === undefined ? undefined : this.clients.get(driver);
        client?.conn.send(acpEnvelope(payload));
        return;
      }
      const seq = eventSeqOf(json);
      for (const cid of this.sessionSubscribers.get(sid) ?? []) {
        const buf = this.loadLiveBuffer.get(bufKey(cid, sid));
        if (buf !== undefined && buf.length < MAX_BUFFERED_LIVE_PER_LOAD) {
          buf.push({ payload, seq });
          continue;
        }
        this.clients.get(cid)?.conn.send(acpEnvelope(payload));
      }
      return;
    }
    const isNotification = json !== undefined && !hasKey(json, "id");
    if (!isNotification) return;
    if (sid !== undefined && !this.sessionSubscribers.has(sid)) return;
    if (this.lastActiveClient !== undefined) {
      this.clients.get(this.lastActiveClient)?.conn.send(acpEnvelope(payload));
    }
  }

  private routeResponse(client: ClientState, namespacedId: string, json: unknown): void {
    const clientId = client.conn.clientId;
    const sid = extractSessionIdFromResult(json);
    if (sid !== undefined) {
      this.subscribers(sid).add(clientId);
      if (!this.sessionDriver.has(sid)) this.sessionDriver.set(sid, clientId);
    }
    if (client.patchInitializeModel) {
      client.patchInitializeModel = false;
      patchInitializeResponseModel(json, client.conn.capabilities.default_model);
    }
    client.conn.send(acpEnvelope(JSON.stringify(json)));
    const pending = this.pendingLoadByReq.get(namespacedId);
    if (pending === undefined) return;
    this.pendingLoadByReq.delete(namespacedId);
    const key = bufKey(pending.client, pending.sid);
    const cutoff = this.loadReplayMaxSeq.get(key);
    this.loadReplayMaxSeq.delete(key);
    const buffered = this.loadLiveBuffer.get(key);
    this.loadLiveBuffer.delete(key);
    const target = this.clients.get(pending.client);
    if (buffered !== undefined && target !== undefined) {
      for (const b of buffered) {
        if (cutoff !== undefined && b.seq !== undefined && b.seq <= cutoff) continue;
        target.conn.send(acpEnvelope(b.payload));
      }
    }
    const cached = this.interactionRequests.get(pending.sid);
    if (cached !== undefined && target !== undefined) {
      for (const req of cached.values()) target.conn.send(acpEnvelope(req));
    }
  }

  private subscribers(sid: string): Set<number> {
    let subs = this.sessionSubscribers.get(sid);
    if (subs === undefined) {
      subs = new Set();
      this.sessionSubscribers.set(sid, subs);
    }
    return subs;
  }

  private control(conn: Connection, requestId: string, command: ControlCommand): void {
    const meta = this.opts.metadata;
    let result: ControlResult;
    let armRelaunch = false;
    switch (command.type) {
      case "get_leader_info":
        result = { Ok: leaderInfo({ ...meta, pid: this.opts.reportedPid }) };
        break;
      case "cpu_profile_status":
        result = {
          Ok: {
            type: "cpu_profile_status",
            active: false,
            stopping: false,
            started_at: null,
            svg_path: null,
            frequency_hz: null,
          },
        };
        break;
      case "start_cpu_profile":
        result = {
          Err: {
            code: "runtime_profiling_unsupported",
            message: "runtime CPU profiling is not supported by this build",
          },
        };
        break;
      case "stop_cpu_profile":
        result = { Err: { code: "profile_not_active", message: "no CPU profile is active" } };
        break;
      case "workspace_status":
      case "workspace_stop":
        result = { Ok: workspaceStatusNone(this.opts.reportedPid) };
        break;
      case "workspace_pause":
      case "workspace_resume":
        result = { Err: { code: "internal_error", message: "no workspace exposure is running" } };
        break;
      case "workspace_start":
        result = {
          Err: {
            code: "internal_error",
            message: "failed to connect workspace to hub: no hub in the simulator",
          },
        };
        break;
      case "relaunch_for_update": {
        if (!leaderIsOlderThan(meta.binaryVersion, command.to_version)) {
          result = {
            Ok: {
              type: "relaunch_declined",
              reason: `leader version ${meta.binaryVersion} is not older than ${command.to_version}`,
            },
          };
        } else if (this.relaunching) {
          result = {
            Ok: { type: "relaunch_declined", reason: "a relaunch is already in progress" },
          };
        } else {
          this.relaunching = true;
          armRelaunch = true;
          result = {
            Ok: {
              type: "relaunching",
              from_version: meta.binaryVersion,
              to_version: command.to_version,
              grace_ms: RELAUNCH_TOTAL_GRACE_MS,
            },
          };
        }
        break;
      }
    }
    conn.send(controlResult(requestId, result));
    if (armRelaunch) void this.relaunchDrain();
  }

  /** spawn_relaunch_drain: wait up to 5 s for idle, then shut down for auto_update. */
  private async relaunchDrain(): Promise<void> {
    const deadline = Date.now() + RELAUNCH_GRACE_MS;
    while ((this.pendingRequests > 0 || this.opts.agentBusy()) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      if (this.stopped) return;
    }
    await this.stop("auto_update");
  }

  /** broadcast_shutdown + loop exit + socket unlink (graceful paths only). */
  async stop(reason: "auto_update" | "manual" | "all_clients_gone"): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (reason !== "all_clients_gone") {
      for (const c of this.clients.values()) {
        c.conn.send(shuttingDown(reason));
        c.conn.send(SHUTDOWN);
      }
    }
    for (const c of [...this.clients.values()]) c.conn.flushAndClose();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.opts.onExit(reason);
  }
}

function bufKey(client: number, sid: string): string {
  return `${client} ${sid}`;
}

function hasKey(json: unknown, key: string): boolean {
  return typeof json === "object" && json !== null && Object.hasOwn(json, key);
}

function isPrompt(json: unknown): boolean {
  return (
    typeof json === "object" && json !== null && Reflect.get(json, "method") === "session/prompt"
  );
}
