// The private tmux server that hosts the simulator's terminals: `tmux -L <name> -f /dev/null`.
// One tmux session per Herdr workspace (named like the workspace, `w1`), and one tmux window per
// Herdr pane: a tab's root pane in a window named after the tab, each pane split off it in a
// window of its own (`pane-w1-p3`). A keep-alive session named after the Herdr session holds the
// server up when no workspace exists.
// Every pane's process is started through a launcher script (see launch.ts) that execs the argv,
// so the tmux pane pid is the argv command's own pid.
//
// Geometry: a headless Herdr server to which no client ever attached gives EVERY pane the same
// terminal size, split or not, and never resizes it (AppState::estimate_pane_size: no pane rects
// were computed, so the headless size, src/app/state.rs). A window per pane, of that size,
// does the same; tmux splits would halve panes and resize their neighbours.
// The tmux server runs in the foreground (`tmux -D`) as a child of the simulator, never as a
// daemon: real Herdr opens every pane's pty in its own server process and keeps the master
// (src/pty/backend.rs `spawn_with_portable_pty`; masters move to a new server over SCM_RIGHTS on
// a live handoff, src/server/handoff.rs), and grok-seat proves a pane is the server's by who holds
// that master (lib/proof/pane-terminal.ts). Here the holder is tmux, a process the server started,
// between it and the pane's process, as the proof allows; a daemonised tmux would belong to no one.
import { type ChildProcess, execFile, spawn } from "node:child_process";

export type TerminalSize = { readonly cols: number; readonly rows: number };

/** tmux's `-x <cols> -y <rows>` for new-session, new-window and resize-window. */
function sizeArgs(size: TerminalSize): string[] {
  return ["-x", `${size.cols}`, "-y", `${size.rows}`];
}

export type SpawnedTmuxPane = {
  readonly paneId: string;
  readonly pid: number;
  readonly windowId: string;
  readonly tty: string;
};

export type TmuxPaneFacts = {
  readonly paneId: string;
  readonly pid: number;
  readonly historySize: number;
  readonly height: number;
  readonly scrollPosition: number;
  readonly title: string;
};

const SPAWN_FORMAT = "#{pane_id} #{pane_pid} #{window_id} #{pane_tty}";

export class TmuxError extends Error {}

export class Tmux {
  readonly socketName: string;
  /** The size new windows get (default-size), set at start. */
  private defaultSize: TerminalSize | null = null;
  private readonly clientEnv: NodeJS.ProcessEnv;
  private server: ChildProcess | null = null;

  constructor(socketName: string) {
    this.socketName = socketName;
    const env = { ...process.env };
    delete env.TMUX;
    delete env.TMUX_PANE;
    this.clientEnv = env;
  }

  run(args: readonly string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        "tmux",
        ["-L", this.socketName, "-f", "/dev/null", ...args],
        { env: this.clientEnv, maxBuffer: 64 * 1024 * 1024 },
        (err, stdout, stderr) => {
          if (err) reject(new TmuxError(`tmux ${args[0]}: ${stderr.trim() || err.message}`));
          else resolve(stdout);
        },
      );
    });
  }

  /** The tmux server process (our child), once started. */
  get serverPid(): number | null {
    return this.server?.pid ?? null;
  }

  /** Start the server as our child and wait until it answers (an empty list of sessions). */
  private async startServer(): Promise<void> {
    const server = spawn("tmux", ["-L", this.socketName, "-f", "/dev/null", "-D"], {
      env: this.clientEnv,
      stdio: "ignore",
    });
    this.server = server;
    const exited = new Promise<never>((_, reject) => {
      server.once("exit", (code) => reject(new TmuxError(`tmux -D exited early (${code})`)));
      server.once("error", (err) => reject(new TmuxError(`tmux -D: ${err.message}`)));
    });
    exited.catch(() => undefined);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const up = await Promise.race([
        this.run(["list-sessions"]).then(
          () => true,
          () => false,
        ),
        exited,
      ]);
      if (up) return;
      if (Date.now() > deadline) throw new TmuxError("tmux -D did not come up within 10 s");
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Start the server with a keep-alive session that explains itself to a person attaching. */
  async start(keepAliveSession: string, size: TerminalSize): Promise<void> {
    await this.startServer();
    const banner =
      "herdr simulator: each Herdr workspace is a tmux session (w1, w2, ...), each tab a window";
    await this.run([
      "new-session",
      "-d",
      "-s",
      keepAliveSession,
      ...sizeArgs(size),
      "-n",
      "herdr-sim",
      "--",
      "/bin/sh",
      "-c",
      `printf '%s\\n' '${banner}'; exec tail -f /dev/null`,
    ]);
    await this.run(["set-option", "-g", "default-size", `${size.cols}x${size.rows}`]);
    this.defaultSize = size;
    // A pane whose command exits stays until the simulator has published its exit and removed
    // it (handleExit), so a layout can still split next to a pane that already died, as Herdr's
    // own layout tree can.
    await this.run(["set-option", "-g", "remain-on-exit", "on"]);
  }

  /** tmux's default pane title (the host name), which Herdr would report as no title at all. */
  async defaultTitle(keepAliveSession: string): Promise<string> {
    return (
      await this.run(["display-message", "-p", "-t", `${keepAliveSession}:`, "#{pane_title}"])
    ).replace(/\n$/, "");
  }

  private parseSpawn(out: string): SpawnedTmuxPane {
    const [paneId, pid, windowId, tty] = out.trim().split(" ");
    if (!paneId || !pid || !windowId || !tty) throw new TmuxError(`unexpected tmux output: ${out}`);
    return { paneId, pid: Number(pid), windowId, tty };
  }

  async newSession(
    name: string,
    cwd: string,
    script: string,
    size: TerminalSize,
  ): Promise<SpawnedTmuxPane> {
    const where = ["-s", name, ...sizeArgs(size)];
    return this.spawnIn(["new-session", "-d", ...where], cwd, script);
  }

  async newWindow(
    session: string,
    name: string,
    cwd: string,
    script: string,
  ): Promise<SpawnedTmuxPane> {
    return this.spawnIn(["new-window", "-d", "-t", `${session}:`, "-n", name], cwd, script);
  }

  /** `<command> -c cwd -P -F SPAWN_FORMAT -- /bin/sh script`: the new pane as tmux prints it. */
  private async spawnIn(command: string[], cwd: string, script: string): Promise<SpawnedTmuxPane> {
    const out = await this.run([
      ...command,
      "-c",
      cwd,
      "-P",
      "-F",
      SPAWN_FORMAT,
      "--",
      "/bin/sh",
      script,
    ]);
    return this.parseSpawn(out);
  }

  async renameWindow(windowId: string, name: string): Promise<void> {
    await this.run(["rename-window", "-t", windowId, name]).catch(() => undefined);
  }

  async selectWindow(windowId: string): Promise<void> {
    await this.run(["select-window", "-t", windowId]).catch(() => undefined);
  }

  async killPane(paneId: string): Promise<void> {
    await this.run(["kill-pane", "-t", paneId]).catch(() => undefined);
  }

  /** True when new windows are created at `size` (tmux's default-size). */
  createsAt(size: TerminalSize): boolean {
    const d = this.defaultSize;
    return d !== null && d.cols === size.cols && d.rows === size.rows;
  }

  /**
   * Give a new window `size` when that is not the default-size it was created with (the headless
   * size changed at runtime). Otherwise nothing: one tmux call less per pane. A person attaching
   * a tmux client may resize windows, as attaching a client to Herdr resizes its panes.
   */
  async ensureSize(windowId: string, size: TerminalSize): Promise<void> {
    if (this.createsAt(size)) return;
    await this.run(["resize-window", "-t", windowId, ...sizeArgs(size)]).catch(() => undefined);
  }

  /** Remove several panes with one tmux client. */
  async killPanes(paneIds: readonly string[]): Promise<void> {
    if (paneIds.length === 0) return;
    const args = paneIds.flatMap((id, i) => [...(i === 0 ? [] : [";"]), "kill-pane", "-t", id]);
    await this.run(args).catch(async () => {
      // One of them was already gone, which stops the command list: one at a time then.
      for (const id of paneIds) await this.killPane(id);
    });
  }

  async killServer(): Promise<void> {
    const server = this.server;
    const gone =
      server === null || server.exitCode !== null || server.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((r) => server.once("exit", () => r()));
    await this.run(["kill-server"]).catch(() => undefined);
    await Promise.race([gone, new Promise((r) => setTimeout(r, 5_000))]);
    if (server !== null && server.exitCode === null && server.signalCode === null)
      server.kill("SIGKILL");
  }

  async listPanes(): Promise<Map<string, TmuxPaneFacts>> {
    const out = await this.run([
      "list-panes",
      "-a",
      "-F",
      "#{pane_id}\t#{pane_pid}\t#{history_size}\t#{pane_height}\t#{scroll_position}\t#{pane_title}",
    ]).catch(() => "");
    const facts = new Map<string, TmuxPaneFacts>();
    for (const line of out.split("\n")) {
      if (line === "") continue;
      const [paneId = "", pid = "0", history = "0", height = "0", scroll = "", ...title] =
        line.split("\t");
      facts.set(paneId, {
        paneId,
        pid: Number(pid),
        historySize: Number(history),
        height: Number(height),
        scrollPosition: scroll === "" ? 0 : Number(scroll),
        title: title.join("\t"),
      });
    }
    return facts;
  }

  /** Type literal text into a pane, as Herdr's pane.send_text writes bytes to the PTY. */
  async sendLiteral(paneId: string, text: string): Promise<void> {
    if (text === "") return;
    await this.run(["send-keys", "-t", paneId, "-l", "--", text]);
  }

  async sendKey(paneId: string, key: string): Promise<void> {
    await this.run(["send-keys", "-t", paneId, key]);
  }

  async capture(paneId: string, lines: number | undefined): Promise<string> {
    const range = lines === undefined ? [] : ["-S", `-${lines}`];
    return this.run(["capture-pane", "-p", "-J", "-t", paneId, ...range]);
  }
}
