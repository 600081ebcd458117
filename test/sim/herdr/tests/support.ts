// Raw-socket tools for the simulator tests: they talk to the socket directly, never through the
// project's Herdr client, so the simulator is checked against the wire facts alone.
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Test } from "uvu";
import {
  type HerdrSimHandle,
  type HerdrSimOptions,
  startHerdrSim,
} from "../../../helpers/herdr-sim.js";

export type Exchange = {
  /** Everything the server wrote. */
  readonly data: string;
  /** The server closed the connection (as opposed to our timeout). */
  readonly closed: boolean;
  /** The error code that ended the connection (ECONNRESET after a close with unread input). */
  readonly error: string | null;
};

/**
 * Write raw bytes, optionally half-close, and read until the server closes (or timeout). A reset
 * or broken pipe ends the exchange with its code; any other socket error rejects.
 */
export function exchange(
  socketPath: string,
  payload: string | Buffer,
  options: { halfClose?: boolean; timeoutMs?: number } = {},
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path: socketPath, allowHalfOpen: true });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (closed: boolean, error: string | null = null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ data: Buffer.concat(chunks).toString("utf8"), closed, error });
    };
    const timer = setTimeout(() => finish(false), options.timeoutMs ?? 10000);
    socket.on("connect", () => {
      socket.write(payload);
      if (options.halfClose) socket.end();
    });
    socket.on("data", (c) => chunks.push(c));
    socket.on("end", () => finish(true));
    socket.on("close", () => finish(true));
    socket.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ECONNRESET" || err.code === "EPIPE") return finish(true, err.code);
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(err);
      }
    });
  });
}

export type KernelExchange = {
  /** Everything the server wrote before the connection ended. */
  readonly data: string;
  /** How the kernel ended the stream for a reader: EOF, or the errno of the failing read. */
  readonly end: "EOF" | string;
};

/**
 * Like `exchange`, but the client's socket is read with plain read(2) once the server is done,
 * so what the kernel reports is seen as is: libuv reports EOF instead of ECONNRESET when the hang-up
 * arrives together with the last data (uv__stream_io's POLLHUP short-circuit), so a Node client
 * sees a reset only sometimes.
 */
export function kernelExchange(
  socketPath: string,
  payload: string | Buffer,
  timeoutMs = 10000,
): Promise<KernelExchange> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path: socketPath, allowHalfOpen: true });
    socket.pause();
    socket.on("error", reject);
    socket.on("connect", () => {
      socket.write(payload, () => {
        const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
        if (typeof fd !== "number") return reject(new Error("no fd for the client socket"));
        const chunks: Buffer[] = [];
        const deadline = Date.now() + timeoutMs;
        const poll = () => {
          for (;;) {
            const buf = Buffer.alloc(65536);
            let n: number;
            try {
              n = readSync(fd, buf, 0, buf.length, null);
            } catch (err) {
              const code = (err as NodeJS.ErrnoException).code ?? "unknown";
              if (code === "EAGAIN") {
                if (Date.now() > deadline) {
                  socket.destroy();
                  return reject(new Error("the server did not end the connection"));
                }
                setTimeout(poll, 10);
                return;
              }
              socket.destroy();
              return resolve({ data: Buffer.concat(chunks).toString("utf8"), end: code });
            }
            if (n === 0) {
              socket.destroy();
              return resolve({ data: Buffer.concat(chunks).toString("utf8"), end: "EOF" });
            }
            chunks.push(buf.subarray(0, n));
          }
        };
        poll();
      });
    });
  });
}

/** One request line; returns the single reply line without its newline. */
export async function rpc(
  socketPath: string,
  id: string,
  method: string,
  params: unknown,
): Promise<string> {
  const reply = await exchange(socketPath, `${JSON.stringify({ id, method, params })}\n`);
  if (!reply.data.endsWith("\n") || reply.data.indexOf("\n") !== reply.data.length - 1)
    throw new Error(`expected exactly one line, got ${JSON.stringify(reply.data)}`);
  return reply.data.slice(0, -1);
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** rpc and JSON.parse. */
export async function call(
  socketPath: string,
  method: string,
  params: unknown,
  id = "t",
): Promise<{ [key: string]: Json }> {
  const parsed: unknown = JSON.parse(await rpc(socketPath, id, method, params));
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    throw new Error("reply is not an object");
  return parsed as { [key: string]: Json };
}

/** A hook of `agent` reporting to Herdr from its reserved source `herdr:<agent>`. */
export function reportFor(
  sim: { readonly socketPath: string },
  method: "pane.report_agent" | "pane.report_agent_session",
  paneId: string,
  agent: string,
  fields: object,
): Promise<{ [key: string]: Json }> {
  return call(sim.socketPath, method, {
    pane_id: paneId,
    source: `herdr:${agent}`,
    agent,
    ...fields,
  });
}

/** The `agent_session` Herdr shows for a session reported from `herdr:<agent>`. */
export function reservedSession(agent: string, kind: "id" | "path", value: string): Json {
  return { source: `herdr:${agent}`, agent, kind, value };
}

/** The argv of a pane process that lives until `file` exists. */
export function untilFile(file: string): string[] {
  return ["sh", "-c", 'while [ ! -e "$1" ]; do sleep 0.05; done', "sh", file];
}

/** Apply a one-pane layout in `cwd` running `command`; the new root pane's id. */
export async function applyOnePane(
  socketPath: string,
  cwd: string,
  command: readonly string[],
): Promise<string> {
  const r = await call(socketPath, "layout.apply", { root: { type: "pane", cwd, command } });
  return String(at(r, "result.layout.root.pane_id"));
}

/** Follow a dotted path into parsed JSON. */
export function at(value: Json | undefined, path: string): Json | undefined {
  let cur: Json | undefined = value;
  for (const key of path.split(".")) {
    if (cur === null || cur === undefined || typeof cur !== "object") return undefined;
    cur = Array.isArray(cur) ? cur[Number(key)] : cur[key];
  }
  return cur;
}

/** A long-lived connection (events.subscribe / events.wait) collecting lines. */
export class LineStream {
  readonly socket: Socket;
  readonly lines: string[] = [];
  closed = false;
  private buffer = "";

  constructor(socketPath: string, requestLine: string) {
    this.socket = createConnection({ path: socketPath, allowHalfOpen: true });
    this.socket.on("connect", () => this.socket.write(`${requestLine}\n`));
    this.socket.on("data", (c) => {
      this.buffer += c.toString("utf8");
      for (let nl = this.buffer.indexOf("\n"); nl >= 0; nl = this.buffer.indexOf("\n")) {
        this.lines.push(this.buffer.slice(0, nl));
        this.buffer = this.buffer.slice(nl + 1);
      }
    });
    this.socket.on("end", () => {
      this.closed = true;
    });
    this.socket.on("close", () => {
      this.closed = true;
    });
    this.socket.on("error", () => {
      this.closed = true;
    });
  }

  /** Wait for the first line (from `from` on) that satisfies the predicate. */
  async waitLine(pred: (line: string) => boolean, timeoutMs = 15000, from = 0): Promise<string> {
    let found: string | undefined;
    await waitFor(() => {
      found = this.lines.slice(from).find(pred);
      return found !== undefined;
    }, timeoutMs);
    return found as string;
  }

  close(): void {
    this.socket.destroy();
  }
}

export function subscribeStream(
  socketPath: string,
  id: string,
  subscriptions: unknown[],
): LineStream {
  return new LineStream(
    socketPath,
    JSON.stringify({ id, method: "events.subscribe", params: { subscriptions } }),
  );
}

/** Poll until the condition holds; throws with the description on timeout. */
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  timeoutMs = 15000,
  what = "condition",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function sh(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, (err, stdout, stderr) =>
      err ? reject(new Error(`${cmd}: ${stderr || err.message}`)) : resolve(stdout),
    );
  });
}

/**
 * A directory with a fake `grok` executable: a shell script (so the kernel names the process
 * `grok`) that sets its terminal title to "grok" and waits until killed or `exit_file` appears.
 */
export function fakeGrokDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "herdr-sim-grok-"));
  const script = join(dir, "grok");
  writeFileSync(
    script,
    [
      "#!/bin/sh",
      "printf '\\033]2;grok\\007'",
      'f="$GROK_EXIT_FILE"; [ -n "$f" ] || f=/nonexistent',
      'while [ ! -e "$f" ]; do sleep 0.05; done',
      "",
    ].join("\n"),
  );
  chmodSync(script, 0o755);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A test file's one simulator, its work directory and the fake grok's (read inside tests). */
export interface FileSim {
  readonly sim: HerdrSimHandle;
  readonly work: string;
  readonly grokDir: string;
}

/**
 * One simulator for a whole test file: started in `suite.before` with the fake `grok` first on
 * its PATH (`env` on top) and, unless `workspace` is false, workspace w1 created in a fresh work
 * directory named after `tmpPrefix`; stopped and removed with that directory in `suite.after`.
 */
export function simPerFile(
  suite: Test,
  opts: Omit<HerdrSimOptions, "env"> & {
    tmpPrefix: string;
    env?: Readonly<Record<string, string>>;
    workspace?: boolean;
  },
): FileSim {
  let grok: ReturnType<typeof fakeGrokDir> | undefined;
  let sim: HerdrSimHandle | undefined;
  let work: string | undefined;
  const { tmpPrefix, env, workspace, ...options } = opts;
  suite.before(async () => {
    grok = fakeGrokDir();
    work = mkdtempSync(join(tmpdir(), tmpPrefix));
    sim = await startHerdrSim({
      ...options,
      env: { PATH: `${grok.dir}:${process.env.PATH}`, ...env },
    });
    if (workspace !== false) await call(sim.socketPath, "workspace.create", { cwd: work });
  });
  suite.after(async () => {
    await sim?.stop();
    grok?.cleanup();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the file's simulator is read before test.before ran");
    return value;
  };
  return {
    get sim() {
      return started(sim);
    },
    get work() {
      return started(work);
    },
    get grokDir() {
      return started(grok).dir;
    },
  };
}

/**
 * A directory of fake agent executables (shell scripts, so the kernel names each process after
 * its file) that wait until `$AGENT_EXIT_FILE` appears, and a node-run Pi at the path Herdr
 * recognizes in a `node` argv (node_modules/@earendil-works/pi-coding-agent/dist/cli.js).
 */
export function fakeAgentsDir(names: readonly string[]): {
  dir: string;
  piCli: string;
  cleanup: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), "herdr-sim-agents-"));
  const wait = [
    'f="$AGENT_EXIT_FILE"; [ -n "$f" ] || f=/nonexistent',
    'while [ ! -e "$f" ]; do sleep 0.05; done',
  ];
  for (const name of names) {
    writeFileSync(join(dir, name), ["#!/bin/sh", ...wait, ""].join("\n"));
    chmodSync(join(dir, name), 0o755);
  }
  const cliDir = join(dir, "node_modules", "@earendil-works", "pi-coding-agent", "dist");
  mkdirSync(cliDir, { recursive: true });
  const piCli = join(cliDir, "cli.js");
  writeFileSync(
    piCli,
    [
      'const { existsSync } = require("node:fs");',
      "const f = process.env.AGENT_EXIT_FILE;",
      "setInterval(() => { if (f && existsSync(f)) process.exit(0); }, 50);",
      "",
    ].join("\n"),
  );
  return { dir, piCli, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
