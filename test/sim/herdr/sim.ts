// The simulator's app state and its life: ids, focus, spawning terminals in tmux, watching them
// exit (pane_exited), probing their foreground process (agent detection), following their
// titles, and the lifecycle event ring. Request handlers live in handlers-*.ts; the socket
// framing in server.ts. All state changes run one at a time through `exclusive`, as Herdr's
// app loop handles one request or internal event at a time.
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { AgentChange } from "./agent-state.js";
import { TerminalAgentState } from "./agent-state.js";
import { probeForegroundAgent } from "./detect.js";
import { EventHub } from "./event-hub.js";
import {
  isFocused,
  paneAgentStatus,
  paneId,
  paneInfo,
  paneLayoutSnapshot,
  type StateView,
  strippedTitle,
  systemProcs,
  tabId,
} from "./info.js";
import { composeEnv, effectiveDir, resolveExecutable, writeLauncher } from "./launch.js";
import type { PaneAgentState } from "./methods.js";
import {
  allocTerminalId,
  decodePublicNumber,
  encodePublicNumber,
  type Pane,
  paneIdsInLayout,
  removeLeaf,
  type Tab,
  type Terminal,
  type Workspace,
} from "./model.js";
import {
  foregroundProcessGroupId,
  isAlive,
  readEnvVar,
  readStat,
  sessionMembers,
} from "./procfs.js";
import type { Switches } from "./switches.js";
import { Tmux, type TmuxPaneFacts } from "./tmux.js";
import type { WireObject } from "./wire.js";

export type SimOptions = {
  readonly socketPath: string;
  readonly sessionName: string;
  readonly tmuxSocket: string;
  /** Private directory: launcher scripts, the injection log, the HERDR_BIN_PATH shim. */
  readonly dir: string;
  readonly switches: Switches;
  readonly testControl: boolean;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly binPath: string;
  readonly home: string;
};

export type PaneLocation = {
  readonly wsIndex: number;
  readonly ws: Workspace;
  readonly tabIndex: number;
  readonly tab: Tab;
  readonly pane: Pane;
};

/** Where a terminal goes: a new workspace session, a tab's window, or a split-off pane. */
export type SpawnHow =
  | { readonly kind: "session" }
  | { readonly kind: "window"; readonly name: string }
  | { readonly kind: "split" };

export type InjectionEntry = {
  readonly method: string;
  readonly id: string;
  readonly params: unknown;
  readonly at: string;
};

const TICK_MS = 50;

type Probe = {
  next: number;
  /** The agent the detection task currently holds (AgentDetectionPresence). */
  last: string | null;
  probed: boolean;
  pendingShellClear: boolean;
  exitReported: boolean;
};
type Observation = {
  readonly agent: string | null;
  readonly state: PaneAgentState;
  readonly processExited: boolean;
};
const TITLE_EVERY_TICKS = 6;

export class HerdrSim implements StateView {
  readonly procs = systemProcs;
  workspaces: Workspace[] = [];
  active: number | null = null;
  switches: Switches;
  liveFacts: ReadonlyMap<string, TmuxPaneFacts> = new Map();
  readonly hub = new EventHub();
  readonly tmux: Tmux;
  readonly options: SimOptions;
  readonly home: string;
  readonly injections: InjectionEntry[] = [];
  private nextWorkspaceNumber = 1;
  private queue: Promise<unknown> = Promise.resolve();
  private defaultTitle = "";
  private timer: NodeJS.Timeout | undefined;
  private ticks = 0;
  private ticking = false;
  private readonly probes = new Map<string, Probe>();
  /** Every pane session leader ever spawned, for the final sweep. */
  private readonly sessions = new Set<number>();
  private launchCounter = 0;
  private lastFocus: string | null = null;
  /** Panes of exited terminals, removed from tmux in one go at the end of the turn. */
  private readonly deadTmuxPanes: string[] = [];
  private stopped = false;

  constructor(options: SimOptions) {
    this.options = options;
    this.switches = options.switches;
    this.home = options.home;
    this.tmux = new Tmux(options.tmuxSocket);
  }

  get keepAliveSession(): string {
    return `herdr-${this.options.sessionName.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  }

  async start(): Promise<void> {
    mkdirSync(join(this.options.dir, "launch"), { recursive: true, mode: 0o700 });
    await this.tmux.start(this.keepAliveSession, this.switches.headlessSize);
    this.defaultTitle = await this.tmux.defaultTitle(this.keepAliveSession);
    this.timer = setInterval(() => void this.tick(), TICK_MS);
  }

  /** Kill every pane process (by session, so reparented children too) and the tmux server. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    const facts = await this.tmux.listPanes();
    for (const f of facts.values()) if (f.pid > 0) this.sessions.add(f.pid);
    for (const session of this.sessions) {
      for (const pid of sessionMembers(session)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
    await this.tmux.killServer();
  }

  stoppedFlag(): boolean {
    return this.stopped;
  }

  /**
   * Run app work one piece at a time, like Herdr's app loop; after each piece, as after each
   * loop iteration, focus changes are published (sync_focus_events).
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const work = async () => {
      try {
        return await fn();
      } finally {
        this.syncFocusEvents();
        await this.flushTmux();
      }
    };
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * sync_focus_events (src/app/api.rs): when the (active workspace index, focused pane) pair
   * differs from the last one published, emit workspace_focused, tab_focused, pane_focused.
   */
  private syncFocusEvents(): void {
    const loc = this.focusedPane();
    const key = loc === null ? null : `${loc.wsIndex}|${loc.ws.id}:${loc.pane.number}`;
    if (key === this.lastFocus) return;
    this.lastFocus = key;
    if (loc === null) return;
    this.emit("workspace_focused", { workspace_id: loc.ws.id });
    this.emit("tab_focused", { tab_id: tabId(loc.ws, loc.tab), workspace_id: loc.ws.id });
    this.emit("pane_focused", {
      pane_id: paneId(loc.ws, loc.pane.number),
      workspace_id: loc.ws.id,
    });
  }

  emit(kind: string, data: WireObject): void {
    this.hub.push({ kind, data });
  }

  logInjection(method: string, id: string, params: unknown): void {
    const entry: InjectionEntry = { method, id, params, at: new Date().toISOString() };
    this.injections.push(entry);
    appendFileSync(join(this.options.dir, "injections.jsonl"), `${JSON.stringify(entry)}\n`);
  }

  // --- ids ------------------------------------------------------------------------------------

  allocWorkspaceId(): string {
    const n = this.nextWorkspaceNumber++;
    // encode_public_number, as generate_workspace_id does.
    return `w${encodePublicNumber(n)}`;
  }

  parseWorkspaceId(id: string): number | null {
    const i = this.workspaces.findIndex((ws) => ws.id === id);
    return i < 0 ? null : i;
  }

  parseTabId(id: string): { wsIndex: number; tabIndex: number } | null {
    const m = /^(w[^:]+):t([^:]+)$/.exec(id);
    if (!m) return null;
    const wsIndex = this.parseWorkspaceId(m[1] as string);
    const number = decodePublicNumber(m[2] as string);
    if (wsIndex === null || number === null) return null;
    const tabIndex = (this.workspaces[wsIndex] as Workspace).tabs.findIndex(
      (t) => t.number === number,
    );
    return tabIndex < 0 ? null : { wsIndex, tabIndex };
  }

  parsePaneId(id: string): PaneLocation | null {
    const m = /^(w[^:]+):p([^:]+)$/.exec(id);
    if (!m) return null;
    const wsIndex = this.parseWorkspaceId(m[1] as string);
    const number = decodePublicNumber(m[2] as string);
    if (wsIndex === null || number === null) return null;
    return this.locate(wsIndex, number);
  }

  locate(wsIndex: number, paneNumber: number): PaneLocation | null {
    const ws = this.workspaces[wsIndex];
    const pane = ws?.panes.get(paneNumber);
    if (ws === undefined || pane === undefined) return null;
    const tabIndex = ws.tabs.findIndex((t) => paneIdsInLayout(t.layout).includes(paneNumber));
    const tab = ws.tabs[tabIndex];
    return tab === undefined ? null : { wsIndex, ws, tabIndex, tab, pane };
  }

  locateTerminal(t: Terminal): PaneLocation | null {
    for (let wsIndex = 0; wsIndex < this.workspaces.length; wsIndex++) {
      const ws = this.workspaces[wsIndex] as Workspace;
      for (const pane of ws.panes.values())
        if (pane.terminal === t) return this.locate(wsIndex, pane.number);
    }
    return null;
  }

  /** The focused pane of the active workspace (resolve_optional_pane with no id). */
  focusedPane(): PaneLocation | null {
    if (this.active === null) return null;
    const ws = this.workspaces[this.active];
    const tab = ws?.tabs[ws.activeTab];
    if (ws === undefined || tab === undefined) return null;
    return this.locate(this.active, tab.focusedPane);
  }

  isFocused(loc: PaneLocation): boolean {
    return isFocused(this, loc.wsIndex, loc.ws, loc.tab, loc.pane.number);
  }

  /** switch_workspace_tab: focus a tab and mark its panes seen. */
  focusTab(wsIndex: number, tabIndex: number): void {
    const ws = this.workspaces[wsIndex] as Workspace;
    this.active = wsIndex;
    ws.activeTab = tabIndex;
    const tab = ws.tabs[tabIndex] as Tab;
    for (const n of paneIdsInLayout(tab.layout)) {
      const p = ws.panes.get(n);
      if (p) p.seen = true;
    }
    void this.tmux.selectWindow(tab.tmuxWindowId);
  }

  // --- spawning -------------------------------------------------------------------------------

  defaultShell(): string {
    const shell = this.options.baseEnv.SHELL;
    return shell?.startsWith("/") ? shell : "/bin/sh";
  }

  /**
   * Start a terminal: compose the env, resolve the executable (portable-pty errors), write the
   * launcher, ask tmux for the pane, then wait until the launcher has exec'd the command so the
   * pid and /proc facts we report are the command's.
   */
  async spawnTerminal(
    identity: { workspaceId: string; tabId: string; paneId: string; tmuxSession: string },
    requestedCwd: string,
    argv: readonly string[] | null,
    extra: ReadonlyArray<readonly [string, string]>,
    how: SpawnHow,
  ): Promise<Terminal | { error: string }> {
    const env = composeEnv({
      baseEnv: this.options.baseEnv,
      extra,
      socketPath: this.options.socketPath,
      binPath: this.options.binPath,
      identity,
    });
    const dir = effectiveDir(requestedCwd, env);
    const command = argv ?? [this.defaultShell()];
    const exe = command[0] as string;
    const resolved = resolveExecutable(exe, dir, env);
    if ("error" in resolved) return { error: resolved.error };
    if (command.some((a) => a.includes("\0"))) return { error: "nul byte found in provided data" };
    // execvp resolves bare names and paths the way portable-pty does, except "dir/prog".
    const plainName =
      !exe.includes("/") || exe.startsWith("/") || exe.startsWith("./") || exe.startsWith("../");
    const execTarget = plainName && !exe.includes("=") ? exe : resolved.path;
    const script = join(this.options.dir, "launch", `pane-${++this.launchCounter}.sh`);
    const size = this.switches.headlessSize;
    writeLauncher(
      script,
      env,
      execTarget,
      command.slice(1),
      this.tmux.createsAt(size) ? null : size,
    );
    let spawned: Awaited<ReturnType<Tmux["newWindow"]>>;
    try {
      if (how.kind === "session")
        spawned = await this.tmux.newSession(identity.tmuxSession, dir, script, size);
      else if (how.kind === "window")
        spawned = await this.tmux.newWindow(identity.tmuxSession, how.name, dir, script);
      else
        spawned = await this.tmux.newWindow(
          identity.tmuxSession,
          `pane-${identity.paneId.replace(":", "-")}`,
          dir,
          script,
        );
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
    this.sessions.add(spawned.pid);
    await this.tmux.ensureSize(spawned.windowId, size);
    const stat = readStat(spawned.pid);
    await this.waitForExec(spawned.pid, spawned.paneId);
    const terminal: Terminal = {
      id: allocTerminalId(),
      launchArgv: argv,
      launchCwd: requestedCwd,
      manualLabel: undefined,
      agentName: undefined,
      agent: new TerminalAgentState(),
      terminalTitle: undefined,
      revision: 0,
      shellPid: spawned.pid,
      shellStartTime: stat?.startTime ?? "",
      tmuxPaneId: spawned.paneId,
      tmuxWindowId: spawned.windowId,
      tty: spawned.tty,
      gone: false,
    };
    const detectMs = this.switches.detectMs;
    this.probes.set(terminal.id, {
      next: detectMs < 0 ? Number.POSITIVE_INFINITY : Date.now() + detectMs,
      last: null,
      probed: false,
      pendingShellClear: false,
      exitReported: false,
    });
    return terminal;
  }

  /**
   * Real Herdr execs the argv straight from its PTY child; our launcher shell and `env` come
   * first. The launcher's processes carry tmux's TMUX_PANE and not HERDR_PANE_ID; the final
   * exec carries HERDR_PANE_ID (composeEnv) and not TMUX_PANE. Both are required, because
   * mid-exec `/proc/<pid>/environ` can read empty for an instant, which alone looked like "done"
   * and let a pane proof see the launcher's /bin/sh under load.
   */
  private async waitForExec(pid: number, tmuxPaneId: string): Promise<void> {
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline) {
      const stat = readStat(pid);
      if (stat === null || stat.state === "Z") return;
      if (readEnvVar(pid, "TMUX_PANE") !== tmuxPaneId && readEnvVar(pid, "HERDR_PANE_ID") !== null)
        return;
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  // --- removal --------------------------------------------------------------------------------

  /** Take a pane out of its tab; an emptied tab and an emptied workspace go silently. */
  removePane(loc: PaneLocation): { tabSurvives: boolean; workspaceClosed: boolean } {
    const { ws, tab } = loc;
    ws.panes.delete(loc.pane.number);
    const layout = removeLeaf(tab.layout, loc.pane.number);
    if (layout !== null) {
      tab.layout = layout;
      if (tab.focusedPane === loc.pane.number)
        tab.focusedPane = paneIdsInLayout(layout)[0] as number;
      return { tabSurvives: true, workspaceClosed: false };
    }
    const index = ws.tabs.indexOf(tab);
    ws.tabs.splice(index, 1);
    if (ws.activeTab >= ws.tabs.length) ws.activeTab = Math.max(0, ws.tabs.length - 1);
    else if (index < ws.activeTab) ws.activeTab -= 1;
    if (ws.tabs.length > 0) return { tabSurvives: false, workspaceClosed: false };
    this.removeWorkspace(loc.wsIndex);
    return { tabSurvives: false, workspaceClosed: true };
  }

  removeWorkspace(wsIndex: number): void {
    const activeId = this.active === null ? null : this.workspaces[this.active]?.id;
    this.workspaces.splice(wsIndex, 1);
    if (this.workspaces.length === 0) this.active = null;
    else {
      const kept = this.workspaces.findIndex((w) => w.id === activeId);
      this.active = kept >= 0 ? kept : Math.min(this.active ?? 0, this.workspaces.length - 1);
    }
  }

  /** Kill a terminal's processes: tmux closes the pane, then everything in its session dies. */
  async killTerminal(t: Terminal): Promise<void> {
    t.gone = true;
    this.probes.delete(t.id);
    await this.tmux.killPane(t.tmuxPaneId);
    for (const pid of sessionMembers(t.shellPid)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }

  // --- agent state events ---------------------------------------------------------------------

  /** emit_pane_state_update: agent_detected on label change or release, then status change. */
  emitAgentChange(loc: PaneLocation, change: AgentChange | null): void {
    if (change === null) return;
    const id = paneId(loc.ws, loc.pane.number);
    const previousStatus = paneAgentStatus(change.previousState, loc.pane.seen);
    if (change.state !== "idle") loc.pane.seen = true;
    else if (change.previousState === "working" || change.previousState === "blocked")
      loc.pane.seen = false;
    const status = paneAgentStatus(change.state, loc.pane.seen);
    if (change.previousLabel !== change.label || change.released) {
      this.emit("pane_agent_detected", {
        pane_id: id,
        workspace_id: loc.ws.id,
        agent: change.label ?? undefined,
        released: change.released ? true : undefined,
        final_status: change.released ? status : undefined,
      });
    }
    if (previousStatus !== status) {
      this.emit("pane_agent_status_changed", {
        pane_id: id,
        workspace_id: loc.ws.id,
        agent_status: status,
        agent: change.label ?? undefined,
      });
    }
  }

  // --- watchers -------------------------------------------------------------------------------

  private liveTerminals(): Terminal[] {
    return this.workspaces
      .flatMap((ws) => [...ws.panes.values()].map((p) => p.terminal))
      .filter((t) => !t.gone);
  }

  private async tick(): Promise<void> {
    if (this.ticking || this.stopped) return;
    this.ticking = true;
    try {
      this.ticks++;
      const now = Date.now();
      const live = this.liveTerminals();
      // Every exit seen in this tick is handled in one go (one app-loop turn).
      const dead = live.filter((t) => !isAlive(t.shellPid, t.shellStartTime));
      if (dead.length > 0)
        await this.exclusive(async () => {
          for (const t of dead) await this.handleExit(t);
        });
      for (const t of live) {
        if (t.gone) continue;
        const probe = this.probes.get(t.id);
        if (probe !== undefined && now >= probe.next) {
          const period = this.switches.detectMs;
          probe.next = period < 0 ? Number.POSITIVE_INFINITY : now + Math.max(period, TICK_MS);
          const observation = this.probeOnce(t, probe);
          if (observation !== null)
            await this.exclusive(async () => {
              const loc = this.locateTerminal(t);
              if (loc !== null && !t.gone)
                this.emitAgentChange(
                  loc,
                  t.agent.observeDetection(
                    observation.agent,
                    observation.state,
                    observation.processExited,
                  ),
                );
            });
        }
      }
      if (this.ticks % TITLE_EVERY_TICKS === 0) await this.exclusive(() => this.refreshLiveFacts());
    } finally {
      this.ticking = false;
    }
  }

  /**
   * One run of the pane's detection task (src/pane.rs): the process probe is skipped while a
   * full-lifecycle authority is live (should_skip_process_probe_for_lifecycle_authority); an
   * agent that leaves the foreground to the pane's own shell is first reported as a process
   * exit (idle, released) and only cleared on the next probe (foreground_shell_agent_action);
   * the same agent coming back after that report is a replacement process.
   */
  private probeOnce(t: Terminal, probe: Probe): Observation | null {
    const foreground = foregroundProcessGroupId(t.shellPid);
    if (
      t.agent.liveFullLifecycleAuthority() &&
      foreground !== null &&
      probe.probed &&
      !probe.pendingShellClear
    )
      return null;
    probe.probed = true;
    const agent = probeForegroundAgent(t.shellPid);
    const previous = probe.last;
    const status = this.switches.detectedStatus;
    if (previous !== null && probe.exitReported) {
      probe.exitReported = false;
      probe.pendingShellClear = false;
      probe.last = agent;
      return { agent, state: agent === null ? "unknown" : status, processExited: false };
    }
    if (previous !== null && agent === null && foreground === t.shellPid) {
      probe.pendingShellClear = true;
      probe.exitReported = true;
      return { agent: previous, state: "idle", processExited: true };
    }
    probe.pendingShellClear = false;
    if (agent === previous) return null;
    probe.last = agent;
    return { agent, state: agent === null ? "unknown" : status, processExited: false };
  }

  /** Re-read tmux pane facts; a changed (stripped) title bumps revision and emits pane_updated. */
  async refreshLiveFacts(titles = true): Promise<void> {
    if (this.liveTerminals().length === 0) {
      this.liveFacts = new Map();
      return;
    }
    this.liveFacts = await this.tmux.listPanes();
    // Titles change only on the watcher's schedule or before a read, never mid-creation, so a
    // pane_updated for a new pane cannot precede its pane_created.
    if (!titles) return;
    for (let wsIndex = 0; wsIndex < this.workspaces.length; wsIndex++) {
      const ws = this.workspaces[wsIndex] as Workspace;
      for (const pane of ws.panes.values()) {
        const facts = this.liveFacts.get(pane.terminal.tmuxPaneId);
        if (facts === undefined) continue;
        const title = facts.title === this.defaultTitle ? undefined : facts.title;
        const t = pane.terminal;
        if (title === t.terminalTitle) continue;
        const before = strippedTitle(t.terminalTitle);
        t.terminalTitle = title;
        if (before !== strippedTitle(title)) {
          t.revision += 1;
          const loc = this.locate(wsIndex, pane.number);
          if (loc !== null) this.emit("pane_updated", { pane: this.paneInfoAt(loc) });
        }
      }
    }
  }

  paneInfoAt(loc: PaneLocation): WireObject {
    return paneInfo(this, loc.wsIndex, loc.ws, loc.tab, loc.pane);
  }

  /** PaneDied: release an identified agent, pane_exited, remove, layout_updated if the tab lives. */
  async handleExit(t: Terminal): Promise<void> {
    if (t.gone) return;
    t.gone = true;
    this.probes.delete(t.id);
    const loc = this.locateTerminal(t);
    if (loc === null) return;
    this.emitAgentChange(loc, t.agent.observeProcessExit());
    this.emit("pane_exited", { pane_id: paneId(loc.ws, loc.pane.number), workspace_id: loc.ws.id });
    const { tabSurvives } = this.removePane(loc);
    if (tabSurvives) this.emit("layout_updated", { layout: paneLayoutSnapshot(loc.ws, loc.tab) });
    this.deadTmuxPanes.push(t.tmuxPaneId);
  }

  private async flushTmux(): Promise<void> {
    if (this.deadTmuxPanes.length > 0) await this.tmux.killPanes(this.deadTmuxPanes.splice(0));
  }
}
