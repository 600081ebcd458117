// The private tmux server that hosts the simulator's terminals: `tmux -L <name> -f /dev/null`.
// One tmux session per Herdr workspace (named like the workspace, `w1`), one tmux window per
// Herdr tab, one tmux pane per Herdr pane (layout splits are tmux splits). A keep-alive
// session named after the Herdr session holds the server up when no workspace exists.
// Every pane's process is started through a launcher script (see launch.ts) that execs the argv,
// so the tmux pane pid is the argv command's own pid.
//
// The tmux server runs in the foreground (`tmux -D`) as a child of the simulator, never as a
// daemon: real Herdr opens every pane's pty in its own server process and keeps the master
// (src/pty/backend.rs `spawn_with_portable_pty`; masters move to a new server over SCM_RIGHTS on
// a live handoff, src/server/handoff.rs), and grok-seat proves a pane is the server's by who holds
// that master (lib/proof/pane-terminal.ts). Here the holder is tmux, a process the server started,
// between it and the pane's process, as the proof allows; a daemonised tmux would belong to no one.
import { type ChildProcess, execFile, spawn } from "node:child_process";

export const WINDOW_COLS = 200;
export const WINDOW_ROWS = 50;

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
  async start(keepAliveSession: string): Promise<void> {
    await this.startServer();
    const banner =
      "herdr simulator: each Herdr workspace is a tmux session (w1, w2, ...), each tab a window";
    await this.run([
      "new-session",
      "-d",
      "-s",
      keepAliveSession,
      "-x",
      `${WINDOW_COLS}`,
      "-y",
      `${WINDOW_ROWS}`,
      "-n",
      "herdr-sim",
      "--",
      "/bin/sh",
      "-c",
      `printf '%s\\n' '${banner}'; exec tail -f /dev/null`,
    ]);
    await this.run(["set-option", "-g", "default-size", `${WINDOW_COLS}x${WINDOW_ROWS}`]);
    await this.run(["set-option", "-g", "remain-on-exit", "off"]);
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

  async newSession(name: string, cwd: string, script: string): Promise<SpawnedTmuxPane> {
    const out = await this.run([
      "new-session",
      "-d",
      "-s",
      name,
      "-x",
      `${WINDOW_COLS}`,
      "-y",
      `${WINDOW_ROWS}`,
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

  async newWindow(
    session: string,
    name: string,
    cwd: string,
    script: string,
  ): Promise<SpawnedTmuxPane> {
    const out = await this.run([
      "new-window",
      "-d",
      "-t",
      `${session}:`,
      "-n",
      name,
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

  async splitPane(
    target: string,
    direction: "right" | "down",
    secondPercent: number,
    cwd: string,
    script: string,
  ): Promise<SpawnedTmuxPane> {
    const out = await this.run([
      "split-window",
      "-d",
      "-t",
      target,
      direction === "right" ? "-h" : "-v",
      "-l",
      `${secondPercent}%`,
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
