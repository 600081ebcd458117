/**
 * The simulated TUI (`grok --leader --leader-socket P --session-id ID`, or `--resume ID`):
 * decides which session it opens before anything else (startup.ts: flag rules, the session on
 * disk), connects to or spawns the leader, registers as `grok-shell`, initializes, authenticates
 * with `cached_token`, then either creates the session with the caller's UUID or loads the
 * resumed one (`session/load` with the session's cwd and the configured MCP servers; the agent
 * replays its history to this client), records itself in active_sessions.json, then renders the
 * shared session and acts as its owner: typed lines become prompts, `y`/`n` answer permission
 * and question modals, `/quit` or Ctrl-C exits (the leader keeps running). When the leader goes
 * away it reconnects (spawning a new one) and reloads the session from its last event id, like
 * the real bridge.
 *
 * Around the session, as the real TUI: the owner's startup gates (sign-in, consent, folder
 * trust; gates.ts) hold `session/new`/`session/load` until answered; the launch permission mode
 * and the status row come from config.toml; a background update check runs at startup
 * (update.ts); a confining sandbox profile runs the agent in-process instead of a leader
 * (channel.ts); `/minimal` and `/fullscreen` re-exec the TUI in place (relaunch.ts);
 * `/always-approve` toggles the session's always-approve mode.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  corruptActiveSessions,
  registerActiveSession,
  tryUnregisterActiveSession,
} from "../active-sessions.js";
import { acpMcpServers, loadConfig } from "../agent/config.js";
import type { TuiArgs } from "../cli.js";
import { rfc3339 } from "../clock.js";
import { grokHome, LEADER_SOCKET_ENV, PROD_RELAY_WS_URL, type SimEnv } from "../env.js";
import { field, str } from "../json.js";
import { anchorToLaunchDir, leaderPaths } from "../paths.js";
import { leaderDisabledBySandboxNote, requestedConfinement } from "../sandbox.js";
import { permissionMode, statusLineReservesRow } from "../settings.js";
import { setTomlKey, updateConfigToml } from "../toml-edit.js";
import { trace } from "../trace.js";
import { recordTrust, workspaceKey } from "../trust.js";
import { checkUpdateBackground, updatesEnabled } from "../update.js";
import type { ClientCapabilities } from "../wire.js";
import { type AgentChannel, EmbeddedAgent } from "./channel.js";
import { type GateName, StartupGates } from "./gates.js";
import { execRelaunch, takeScreenModeOverride } from "./relaunch.js";
import { connectOrSpawn, readLockPid } from "./spawn.js";
import { materializeStartup, type Startup, StartupError, startupIntent } from "./startup.js";
import { type Modal, View } from "./view.js";

const KEEPALIVE_MS = 30_000;

export async function runTui(
  args: TuiArgs,
  leaderSocket: string | undefined,
  env: SimEnv,
): Promise<void> {
  const launchDir = process.cwd();
  if (leaderSocket !== undefined) {
    process.env[LEADER_SOCKET_ENV] = anchorToLaunchDir(leaderSocket, launchDir);
  }
  if (args.cwd !== undefined) {
    try {
      process.chdir(args.cwd);
    } catch (err) {
      fatal(
        `Error: Failed to set working directory to ${JSON.stringify(args.cwd)}: ${String(err)}`,
        1,
      );
    }
  }
  if (args.noLeader) {
    fatal("grok simulator: the embedded (non-leader) agent is not simulated; run with --leader", 2);
  }
  const cwd = process.cwd();
  // app::run: the sandbox request vetoes leader mode (resolve_leader_mode), `--trust` grants
  // the workspace before anything reads the store, the screen-mode override is taken once.
  const confinement = requestedConfinement(args.sandbox);
  trace("tui_leader_mode", { use_leader: confinement === undefined, sandbox: confinement ?? null });
  if (confinement !== undefined)
    process.stderr.write(`${leaderDisabledBySandboxNote(confinement)}\n`);
  if (args.trust) recordTrust(workspaceKey(cwd), true);
  const override = takeScreenModeOverride();
  const launch: Launch = {
    args,
    argv: process.argv.slice(2),
    minimal: override === undefined ? args.minimal : override === "minimal",
    embedded: confinement !== undefined,
  };
  // app::run: session_startup_intent, then materialize_startup, before the terminal is set up.
  let startup: Startup;
  try {
    startup = materializeStartup(startupIntent(args), cwd, (line) =>
      process.stderr.write(`${line}\n`),
    );
  } catch (err) {
    if (err instanceof StartupError) fatal(`Error: ${err.message}`, 1);
    throw err;
  }
  if (startup.kind === "fork") {
    fatal("grok simulator: --fork-session (x.ai/session/fork) is not simulated", 2);
  }
  const tui =
    startup.kind === "new"
      ? new Tui(env, cwd, startup.sessionId ?? randomUUID(), false, args.prompt, launch)
      : new Tui(env, startup.cwd, startup.sessionId, true, args.prompt, launch);
  await tui.start();
}

/** How this TUI was launched, beyond the session it opens. */
interface Launch {
  args: TuiArgs;
  /** Our own arguments (argv without the executable), for the in-place relaunch. */
  argv: string[];
  minimal: boolean;
  /** Leader mode is off (a confining sandbox profile): the agent runs in this process. */
  embedded: boolean;
}

function fatal(message: string, code: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

class Tui {
  private readonly env: SimEnv;
  private readonly cwd: string;
  private readonly sessionId: string;
  /** Opened with a resume flag: the first attach is a `session/load`, not `session/new`. */
  private readonly resumed: boolean;
  private readonly initialPrompt: string | undefined;
  private readonly view: View;
  private readonly launch: Launch;
  private readonly gates: StartupGates;
  /** The TUI's own permission mode (launch: config.toml `[ui] permission_mode`). */
  private yolo: boolean;
  private auto: boolean;
  private pendingUpdate: string | undefined;
  private client: AgentChannel | undefined;
  private sessionReady = false;
  private lastEventId: string | undefined;
  private registered = false;
  private exiting = false;
  private leaderPid: number | undefined;
  private modalTimer: NodeJS.Timeout | undefined;
  private sessionState = "connecting";
  private activity = "idle";
  private readonly ownPrompts = new Set<string>();
  /** `--rules`: sent as initialize `_meta.rules` (pager acp/mod.rs build_initialize_meta). */
  private readonly rules: string | undefined;

  constructor(
    env: SimEnv,
    cwd: string,
    sessionId: string,
    resumed: boolean,
    initialPrompt: string | undefined,
    launch: Launch,
  ) {
    this.env = env;
    this.launch = launch;
    this.rules = launch.args.rules;
    // effective_yolo_for_launch / effective_auto_for_launch without CLI flags.
    const mode = permissionMode();
    this.yolo = mode === "always-approve";
    this.auto = mode === "auto";
    this.gates = new StartupGates({
      show: (gate, lines) => this.showGate(gate, lines),
      quit: () => this.exit(0),
      authenticate: async (methodId) => {
        const res = await this.client?.request("authenticate", { methodId });
        if (res === undefined) return "not connected";
        return res.error === undefined ? undefined : (str(field(res.error, "data")) ?? "failed");
      },
    });
    this.cwd = cwd;
    this.sessionId = sessionId;
    this.resumed = resumed;
    this.initialPrompt = initialPrompt;
    this.view = new View(process.stdout);
    this.view.header = `Grok Build ${env.version} (simulated) — session ${sessionId}`;
  }

  /**
   * acp/mod.rs connect: yolo/auto from the launch permission mode; `status_line` is whether this
   * process draws a status row (app/status_line.rs `draws_a_row`: not minimal, and
   * `[ui.status_line]` reserves one; by default it does not).
   */
  private capabilities(): ClientCapabilities {
    return {
      yolo_mode: this.yolo,
      auto_mode: this.auto && !this.yolo,
      default_model: null,
      client_version: this.env.version,
      code_nav_enabled: false,
      terminal: false,
      fs_read: false,
      fs_write: false,
      status_line: !this.launch.minimal && statusLineReservesRow(),
    };
  }

  /** SessionFlags::to_meta: both permission keys, always. */
  private modeMeta(): Record<string, boolean> {
    return { yoloMode: this.yolo, autoMode: this.auto && !this.yolo };
  }

  private showGate(gate: GateName | undefined, lines: string[]): void {
    this.view.gate = lines;
    this.status(gate === undefined ? "connecting" : `waiting for ${gate.replace("_", " ")}`);
  }

  async start(): Promise<void> {
    process.on("SIGTERM", () => this.exit(143));
    process.on("SIGHUP", () => this.exit(129));
    process.on("SIGINT", () => this.exit(130));
    if (process.stdin.isTTY) {
      process.stdin.setRawMode(true);
      process.stdout.write("\x1b[?1049h");
    }
    process.stdin.on("data", (chunk: Buffer) => this.keys(chunk.toString("utf8")));
    process.stdin.resume();
    if (this.env.tuiExitAfterMs !== undefined)
      setTimeout(() => this.exit(0), this.env.tuiExitAfterMs);
    this.status("connecting");
    if (updatesEnabled(this.launch.args.noAutoUpdate)) {
      // pager-bin main.rs: the startup check runs beside app::run (check_update_background).
      setImmediate(() => {
        const r = checkUpdateBackground(this.env.version, this.env);
        if (r.latest === undefined) return;
        this.pendingUpdate = r.latest;
        this.view.note(`Update: v${r.latest} available — press ctrl+u to restart`);
      });
    }
    await this.connect(false);
  }

  /** Header line 2: where we are, which leader, and the session state ("session ready"). */
  private status(sessionState?: string, activity?: string): void {
    if (sessionState !== undefined) this.sessionState = sessionState;
    if (activity !== undefined) this.activity = activity;
    const { socketPath } = leaderPaths(PROD_RELAY_WS_URL);
    const pid = this.leaderPid === undefined ? "?" : String(this.leaderPid);
    const where = this.launch.embedded
      ? "no leader (sandbox)"
      : `leader pid ${pid} · socket ${socketPath}`;
    const mode = this.launch.minimal ? " · minimal" : "";
    const perm = this.yolo ? " · always-approve" : this.auto ? " · auto" : "";
    this.view.status = `cwd ${this.cwd} · ${where} · session ${this.sessionState} · ${this.activity}${mode}${perm}`;
    this.view.render();
  }

  private async connect(reconnect: boolean): Promise<void> {
    let delay = 1000;
    for (;;) {
      if (this.exiting) return;
      try {
        if (this.launch.embedded) {
          this.client = new EmbeddedAgent(this.env);
          break;
        }
        const { client } = await connectOrSpawn(
          "grok-shell",
          this.capabilities(),
          this.env.version,
        );
        this.client = client;
        break;
      } catch (err) {
        if (!reconnect) {
          this.status(
            `leader connection failed: ${err instanceof Error ? err.message : String(err)}`,
          );
          return;
        }
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 30_000);
      }
    }
    const client = this.client;
    if (!this.launch.embedded)
      this.leaderPid = readLockPid(leaderPaths(PROD_RELAY_WS_URL).lockPath);
    client.startKeepalive(KEEPALIVE_MS);
    client.onAcp((msg) => this.acp(msg));
    client.onClose((reason) => {
      if (this.exiting) return;
      this.sessionReady = false;
      const why =
        client.shutdownReason === undefined ? reason : `shutting down: ${client.shutdownReason}`;
      this.view.note(`leader connection lost (${why}); reconnecting…`);
      this.status("reconnecting");
      setTimeout(() => void this.connect(true), 1000);
    });
    const init = await client.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      _meta:
        this.rules === undefined
          ? { clientType: "grok-pager" }
          : { clientType: "grok-pager", rules: this.rules },
    });
    if (!reconnect) {
      // The owner's startup screens: nothing creates or loads the session before they are done.
      const passed = await this.gates.run(init.result, {
        cwd: this.cwd,
        minimal: this.launch.minimal,
        consentGate: this.env.consentGate,
      });
      if (!passed) return;
    } else {
      await client.request("authenticate", { methodId: "cached_token" });
    }
    const config = loadConfig();
    const mcpServers = acpMcpServers(config);
    if (!reconnect && this.resumed) {
      if (!(await this.loadResumed(client, mcpServers))) return;
    } else if (!reconnect) {
      const res = await client.request("session/new", {
        cwd: this.cwd,
        mcpServers,
        _meta: { sessionId: this.sessionId, ...this.modeMeta() },
      });
      if (res.error !== undefined) {
        this.view.note(`session/new failed: ${JSON.stringify(res.error)}`);
        this.status("failed");
        return;
      }
      this.registerActive();
    } else {
      const meta: Record<string, unknown> = { ...this.modeMeta() };
      if (this.lastEventId !== undefined) meta.cursor = this.lastEventId;
      const res = await client.request("session/load", {
        sessionId: this.sessionId,
        cwd: this.cwd,
        mcpServers,
        _meta: meta,
      });
      if (res.error !== undefined)
        this.view.note(`session/load failed: ${JSON.stringify(res.error)}`);
      else this.registerActive();
    }
    this.sessionReady = true;
    this.status("ready");
    if (!reconnect && this.initialPrompt !== undefined) this.submit(this.initialPrompt);
  }

  /**
   * Effect::LoadSession for a CLI resume (pager `app/effects/mod.rs`): `session/load` with the
   * session's cwd, `load_mcp_servers(cwd)` and SessionFlags::to_meta (`yoloMode`/`autoMode`, no
   * cursor: the whole history replays to this client). On success handle_session_loaded
   * (`dispatch/session/load.rs`) pushes RegisterActiveSession with that cwd; on failure
   * handle_session_load_failed shows "Couldn't load session: …" and the TUI stays open with no
   * session and no active_sessions.json entry.
   */
  private async loadResumed(client: AgentChannel, mcpServers: unknown[]): Promise<boolean> {
    this.view.note(`Loading session ${this.sessionId}...`);
    const res = await client.request("session/load", {
      sessionId: this.sessionId,
      cwd: this.cwd,
      mcpServers,
      _meta: this.modeMeta(),
    });
    trace("tui_load", { sessionId: this.sessionId, cwd: this.cwd, ok: res.error === undefined });
    if (res.error !== undefined) {
      const message = str(field(res.error, "message")) ?? JSON.stringify(res.error);
      this.view.note(`Couldn't load session: ${message}`);
      this.status("load failed");
      return false;
    }
    this.registerActive();
    return true;
  }

  /** Effect::RegisterActiveSession: this process's pid, cwd and open time. */
  private registerActive(): void {
    if (this.env.skipActiveSessions) return;
    if (this.env.corruptActiveSessions) {
      corruptActiveSessions(grokHome());
      return;
    }
    registerActiveSession(grokHome(), {
      session_id: this.sessionId,
      pid: process.pid,
      cwd: this.cwd,
      opened_at: rfc3339(),
    });
    this.registered = true;
  }

  private acp(msg: Record<string, unknown>): void {
    const method = str(msg.method);
    const params = msg.params;
    if (method === undefined) return;
    const eventId = str(field(field(params, "_meta"), "eventId"));
    if (eventId !== undefined && field(params, "sessionId") === this.sessionId)
      this.lastEventId = eventId;
    if (Object.hasOwn(msg, "id")) {
      this.reverseRequest(msg.id, method, params);
      return;
    }
    switch (method) {
      case "session/update":
        this.sessionUpdate(params);
        return;
      case "_x.ai/session_notification":
      case "_x.ai/session/update":
        this.xaiUpdate(field(params, "update"));
        return;
      case "_x.ai/queue/changed": {
        const entries = field(params, "entries");
        this.view.queue = Array.isArray(entries)
          ? entries.map((e) => `${str(field(e, "text")) ?? ""}${ownerSuffix(field(e, "owner"))}`)
          : [];
        const running = str(field(params, "runningPromptId"));
        this.status(undefined, running === undefined ? "idle" : `running ${running}`);
        return;
      }
      case "x.ai/leader/version_mismatch":
        this.view.note(str(field(params, "message")) ?? "version mismatch");
        return;
      default:
        return;
    }
  }

  private sessionUpdate(params: unknown): void {
    if (field(params, "sessionId") !== this.sessionId) return;
    const update = field(params, "update");
    const promptId = str(field(field(params, "_meta"), "promptId"));
    switch (field(update, "sessionUpdate")) {
      case "user_message_chunk":
        this.view.user(str(field(field(update, "content"), "text")) ?? "", promptId);
        return;
      case "agent_message_chunk":
        this.view.agentChunk(str(field(field(update, "content"), "text")) ?? "", promptId);
        return;
      case "tool_call":
        this.view.tool(
          str(field(update, "toolCallId")) ?? "",
          str(field(update, "title")) ?? "tool",
          str(field(update, "status")) ?? "pending",
        );
        return;
      case "tool_call_update":
        this.view.tool(
          str(field(update, "toolCallId")) ?? "",
          "tool",
          str(field(update, "status")) ?? "updated",
        );
        return;
      default:
        return;
    }
  }

  private xaiUpdate(update: unknown): void {
    const kind = field(update, "sessionUpdate");
    if (kind === "interaction_resolved") {
      const id = str(field(update, "tool_call_id"));
      if (this.view.modal !== undefined && this.view.modal.toolCallId === id) this.clearModal();
    } else if (kind === "turn_completed") {
      const stop = str(field(update, "stop_reason")) ?? "";
      if (stop !== "end_turn") this.view.note(`turn ended: ${stop}`);
    } else if (kind === "model_changed") {
      this.view.note(
        `model: ${str(field(update, "model_id")) ?? "?"} ${str(field(update, "reasoning_effort")) ?? ""}`,
      );
    }
  }

  private reverseRequest(id: unknown, method: string, params: unknown): void {
    const client = this.client;
    if (client === undefined) return;
    if (method === "fs/read_text_file") {
      const path = str(field(params, "path")) ?? "";
      try {
        client.respond(id, { content: readFileSync(path, "utf8") });
      } catch (err) {
        client.respondError(id, { code: -32603, message: "Internal error", data: String(err) });
      }
      return;
    }
    const kind =
      method === "session/request_permission"
        ? "permission"
        : method === "_x.ai/ask_user_question"
          ? "question"
          : method === "_x.ai/exit_plan_mode"
            ? "plan_approval"
            : undefined;
    if (kind === undefined) {
      client.respondError(id, { code: -32601, message: "Method not found" });
      return;
    }
    const toolCallId =
      str(field(params, "toolCallId")) ?? str(field(field(params, "toolCall"), "toolCallId")) ?? "";
    const title =
      kind === "permission"
        ? (str(field(field(params, "toolCall"), "title")) ?? "tool call")
        : kind === "question"
          ? (str(field(firstOf(field(params, "questions")), "question")) ?? "question")
          : "exit plan mode";
    const modal: Modal = { requestId: id, kind, toolCallId, title };
    this.view.modal = modal;
    if (kind === "permission" && this.yolo) {
      // handle_permission_request: the pager approves at once while always-approve is on.
      this.answer(true);
      return;
    }
    this.view.render();
    trace("tui_modal", { kind, toolCallId });
    if (this.env.owner !== "manual") {
      const allow = this.env.owner === "allow";
      this.modalTimer = setTimeout(() => this.answer(allow), this.env.ownerDelayMs);
    }
  }

  /** The owner's answer to the open modal (first answer wins in the agent). */
  private answer(allow: boolean): void {
    const modal = this.view.modal;
    const client = this.client;
    if (modal === undefined || client === undefined) return;
    let result: unknown;
    if (modal.kind === "permission") {
      result = { outcome: { outcome: "selected", optionId: allow ? "allow-once" : "reject-once" } };
    } else if (modal.kind === "question") {
      result = allow
        ? { outcome: "accepted", answers: { [modal.title]: ["First"] } }
        : { outcome: "cancelled" };
    } else {
      result = { outcome: allow ? "approved" : "cancelled" };
    }
    client.respond(modal.requestId, result);
    trace("tui_answer", { kind: modal.kind, toolCallId: modal.toolCallId, allow });
    this.view.note(`${allow ? "allowed" : "denied"}: ${modal.title}`);
    this.clearModal();
  }

  private clearModal(): void {
    if (this.modalTimer !== undefined) clearTimeout(this.modalTimer);
    this.modalTimer = undefined;
    this.view.modal = undefined;
    this.view.render();
  }

  private submit(text: string): void {
    const client = this.client;
    if (client === undefined || !this.sessionReady) {
      this.view.note("not connected");
      return;
    }
    const promptId = randomUUID();
    this.ownPrompts.add(promptId);
    trace("tui_prompt", { promptId, text });
    void client
      .request("session/prompt", {
        sessionId: this.sessionId,
        prompt: [{ type: "text", text }],
        _meta: { promptId },
      })
      .then((res) => {
        if (res.error !== undefined) this.view.note(`prompt failed: ${JSON.stringify(res.error)}`);
      });
  }

  private keys(data: string): void {
    for (const ch of data) {
      if (this.gates.key(ch)) continue;
      if (ch === "\x03" || ch === "\x04") {
        this.exit(0);
        return;
      }
      if (ch === "\x15" && this.pendingUpdate !== undefined) {
        // Action::QuitForUpdate: unregister and quit; the download finishes after exit.
        this.exit(0, "Update installed. Run `grok` to start.");
        return;
      }
      if (ch === "\r" || ch === "\n") {
        const line = this.view.input.trim();
        this.view.input = "";
        this.view.render();
        if (line === "/quit" || line === "/exit") {
          this.exit(0);
          return;
        }
        if (line === "/minimal" || line === "/fullscreen") {
          this.relaunch(line === "/minimal");
          return;
        }
        if (line === "/always-approve") {
          this.toggleAlwaysApprove();
          continue;
        }
        if (line !== "") this.submit(line);
        continue;
      }
      if (ch === "\x7f" || ch === "\b") {
        this.view.input = this.view.input.slice(0, -1);
        this.view.render();
        continue;
      }
      if (this.view.modal !== undefined && this.view.input === "" && (ch === "y" || ch === "n")) {
        this.answer(ch === "y");
        continue;
      }
      if (ch >= " ") {
        this.view.input += ch;
        this.view.render();
      }
    }
  }

  /** UnregisterActiveSession (best effort), disconnect, exit; the leader keeps running. */
  private exit(code: number, farewell?: string): void {
    if (this.exiting) return;
    this.leave();
    if (farewell !== undefined) process.stderr.write(`${farewell}\n`);
    setTimeout(() => process.exit(code), 20);
  }

  /** The quit tail shared by exit and relaunch: unregister, disconnect, restore the terminal. */
  private leave(): void {
    this.exiting = true;
    if (this.registered) tryUnregisterActiveSession(grokHome(), this.sessionId);
    this.registered = false;
    this.client?.close();
    if (process.stdin.isTTY) {
      process.stdout.write("\x1b[?1049l");
      process.stdin.setRawMode(false);
    }
  }

  /**
   * Action::RelaunchInScreenMode: with a session, unregister, quit the loop, restore the
   * terminal and exec ourselves in place with `--resume <id>` (relaunch.ts); without one, quit.
   */
  private relaunch(minimal: boolean): void {
    if (this.exiting) return;
    if (!this.sessionReady) {
      this.exit(0);
      return;
    }
    trace("tui_relaunch", { minimal, sessionId: this.sessionId });
    this.leave();
    const mode = minimal ? "minimal" : "fullscreen";
    process.stderr.write(
      `Reopening session in ${mode} mode… (switch back with ${minimal ? "/fullscreen" : "/minimal"})\n`,
    );
    try {
      execRelaunch(this.launch.argv, this.sessionId, minimal);
    } catch (err) {
      process.stderr.write(
        `Failed to relaunch in requested mode: ${err instanceof Error ? err.message : String(err)}\nResume this session with:\n  GROK_SCREEN_MODE=${mode} grok --${mode} --resume ${this.sessionId}\n`,
      );
      setTimeout(() => process.exit(0), 20);
    }
  }

  /**
   * `/always-approve` (dispatch/modes.rs set_yolo_mode): flip the TUI's mode, persist
   * `[ui] permission_mode`, then tell the agent with `x.ai/yolo_mode_changed`.
   */
  private toggleAlwaysApprove(): void {
    if (!this.sessionReady) return;
    this.yolo = !this.yolo;
    this.auto = false;
    const canonical = this.yolo ? "always-approve" : "ask";
    updateConfigToml((text) => setTomlKey(text, ["ui"], "permission_mode", canonical));
    this.client?.notify("_x.ai/yolo_mode_changed", {
      yolo_mode: this.yolo,
      auto_mode: false,
      permission_mode: canonical,
    });
    trace("tui_permission_mode", { permission_mode: canonical });
    this.view.note(`always-approve ${this.yolo ? "on" : "off"}`);
    this.status();
  }
}

function ownerSuffix(owner: unknown): string {
  return typeof owner === "string" ? ` (${owner})` : "";
}

function firstOf(list: unknown): unknown {
  return Array.isArray(list) ? list[0] : undefined;
}
