// The Herdr API socket (src/api/server.rs): a unix socket with mode 0600, one request per
// connection. The first line is read up to '\n' within 1 MiB and the read deadline (5 s); EOF
// before a newline, an over-long line, a timeout or invalid UTF-8 drop the connection without a
// word; a line that trims to nothing closes it silently. Otherwise exactly one compact line is
// written and the connection closes, except for the streaming methods (streams.ts). Bytes after
// the request line are never read, so such a close resets the client (request-reader.ts).
// `ping` is answered on the socket thread; everything else goes through the app queue.
import { chmodSync, existsSync, unlinkSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import * as v from "valibot";
import { parseRequest, rustTrim } from "./envelope.js";
import {
  clearAgentAuthority,
  releaseAgent,
  reportAgent,
  reportAgentSession,
} from "./handlers-agent.js";
import { layoutApply, tabCreate, workspaceCreate } from "./handlers-create.js";
import { agentPrompt, agentStart, sendInput, sendKeys, sendText } from "./handlers-input.js";
import {
  layoutExport,
  paneClose,
  paneCurrent,
  paneFocus,
  paneGet,
  paneList,
  paneProcessInfo,
  paneRead,
  sessionSnapshot,
  tabGet,
  tabList,
  workspaceGet,
  workspaceList,
} from "./handlers-panes.js";
import type * as M from "./methods.js";
import { methodNames } from "./methods.js";
import { peerDone, RequestLineReader, socketFd } from "./request-reader.js";
import { type JsonValue, toPlain } from "./serde-json-read.js";
import type { HerdrSim } from "./sim.js";
import { type StreamPeer, subscribe, waitForEvent } from "./streams.js";
import { mergeSwitches, PartialSwitchesSchema } from "./switches.js";
import { errorLine, successLine } from "./wire.js";

export const MAX_INITIAL_REQUEST_BYTES = 1024 * 1024;

export const INJECTION_METHODS = [
  "pane.send_text",
  "pane.send_keys",
  "pane.send_input",
  "agent.start",
  "agent.prompt",
];

/** A method's handler, called with the params its schema in methods.ts parsed. */
type Handler = (sim: HerdrSim, id: string, params: never) => Promise<string> | string;

const HANDLERS: Readonly<Record<string, Handler>> = {
  "session.snapshot": sessionSnapshot,
  "workspace.create": workspaceCreate,
  "workspace.list": workspaceList,
  "workspace.get": workspaceGet,
  "tab.create": tabCreate,
  "tab.list": tabList,
  "tab.get": tabGet,
  "layout.apply": layoutApply,
  "layout.export": layoutExport,
  "pane.get": paneGet,
  "pane.focus": paneFocus,
  "pane.close": paneClose,
  "pane.list": paneList,
  "pane.current": paneCurrent,
  "pane.process_info": paneProcessInfo,
  "pane.read": paneRead,
  "pane.report_agent": reportAgent,
  "pane.report_agent_session": reportAgentSession,
  "pane.clear_agent_authority": clearAgentAuthority,
  "pane.release_agent": releaseAgent,
  "pane.send_text": sendText,
  "pane.send_keys": sendKeys,
  "pane.send_input": sendInput,
  "agent.start": agentStart,
  "agent.prompt": agentPrompt,
};

function simMethod(sim: HerdrSim, id: string, method: string, params: unknown): string {
  if (method === "sim.event_ring")
    return successLine(id, {
      type: "event_ring",
      current_sequence: sim.hub.currentSequence(),
      retained: sim.hub.retained(),
      oldest_sequence: sim.hub.oldestSequence() ?? undefined,
      kinds: sim.hub.retainedKinds(),
    });
  if (method === "sim.injection_log")
    return successLine(id, {
      type: "injection_log",
      entries: sim.injections.map((e) => JSON.stringify(e)),
    });
  const patch = v.safeParse(PartialSwitchesSchema, isJsonValue(params) ? toPlain(params) : params);
  if (!patch.success)
    return errorLine(id, "invalid_request", `sim.configure: ${patch.issues[0].message}`);
  sim.switches = mergeSwitches(sim.switches, patch.output);
  return successLine(id, { type: "ok" });
}

function isJsonValue(x: unknown): x is JsonValue {
  return typeof x === "object" && x !== null && "k" in x;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const READ_POLL_MS = 2;

/**
 * Herdr writes its line(s) and drops the stream: a plain close, never a shutdown. Input the
 * client sent after the request line is still unread then, so the client's next read gets
 * ECONNRESET (request-reader.ts).
 */
function closeAfterFlush(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.writableLength === 0) socket.destroy();
  else socket.once("drain", () => socket.destroy());
}

export class HerdrSocketServer {
  private readonly sim: HerdrSim;
  private readonly path: string;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(sim: HerdrSim, path: string) {
    this.sim = sim;
    this.path = path;
  }

  /** prepare_socket_path: refuse a live socket, replace a stale one; then bind and chmod 0600. */
  async listen(): Promise<void> {
    if (existsSync(this.path)) {
      const live = await new Promise<boolean>((resolve) => {
        const probe = createConnection(this.path);
        probe.once("connect", () => {
          probe.destroy();
          resolve(true);
        });
        probe.once("error", () => resolve(false));
      });
      if (live) throw new Error(`herdr is already running (socket busy at ${this.path})`);
      unlinkSync(this.path);
    }
    const server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (socket) =>
      this.accept(socket),
    );
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.path, () => resolve());
    });
    chmodSync(this.path, 0o600);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
    try {
      unlinkSync(this.path);
    } catch {
      // already gone
    }
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    const fd = socketFd(socket);
    if (fd === null) {
      socket.destroy();
      return;
    }
    const reader = new RequestLineReader(fd, MAX_INITIAL_REQUEST_BYTES);
    const deadline = Date.now() + this.sim.switches.requestTimeoutMs;
    const step = (): void => {
      if (socket.destroyed) return;
      const r = reader.step();
      if (r.kind === "drop") {
        socket.destroy();
        return;
      }
      if (r.kind === "line") {
        void this.handleLine(socket, fd, r.bytes);
        return;
      }
      // Herdr sleeps 100 ms between empty reads; polling faster only makes requests quicker.
      if (Date.now() >= deadline) socket.destroy();
      else setTimeout(step, READ_POLL_MS);
    };
    step();
  }

  private async handleLine(socket: Socket, fd: number, bytes: Buffer): Promise<void> {
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      socket.destroy();
      return;
    }
    const line = rustTrim(text);
    if (line === "") {
      socket.destroy();
      return;
    }
    const parsed = parseRequest(line, this.sim.options.testControl, this.sim.switches.methodSet);
    if (!parsed.ok) {
      socket.write(`${errorLine("", "invalid_request", parsed.message)}\n`);
      closeAfterFlush(socket);
      return;
    }
    const { id, method, params } = parsed.request;
    if (INJECTION_METHODS.includes(method)) this.sim.logInjection(method, id, params);

    const peer: StreamPeer = {
      closed: () => socket.destroyed || peerDone(fd),
      write: (l) => {
        if (!socket.destroyed) socket.write(`${l}\n`);
      },
      end: () => closeAfterFlush(socket),
    };
    const firstLine = (l: string) => this.writeFirst(socket, method, id, l);

    if (method === "events.subscribe")
      return subscribe(
        this.sim,
        id,
        params as ReturnType<typeof M.eventsSubscribeParams>,
        peer,
        firstLine,
      );
    if (method === "events.wait")
      return waitForEvent(
        this.sim,
        id,
        params as ReturnType<typeof M.eventsWaitParams>,
        peer,
        firstLine,
      );

    let response: string;
    if (method === "ping") {
      const s = this.sim.switches;
      response = successLine(id, {
        type: "pong",
        version: s.version,
        protocol: s.protocol,
        capabilities: s.capabilities,
      });
    } else if (method === "client_shell.surface.set") {
      // 0.9: answered on the socket thread, only a client-shell endpoint may set a surface.
      response = errorLine(
        id,
        "connection_local_only",
        "client_shell.surface.set is only available through a client shell endpoint",
      );
    } else if (method.startsWith("sim.")) response = simMethod(this.sim, id, method, params);
    else {
      const handler = HANDLERS[method];
      response = await this.sim.exclusive(async () =>
        handler === undefined
          ? errorLine(id, "not_simulated", `herdr-sim does not simulate ${method}`)
          : (handler as (s: HerdrSim, i: string, p: unknown) => Promise<string> | string)(
              this.sim,
              id,
              params,
            ),
      );
    }
    if (await this.writeFirst(socket, method, id, response)) closeAfterFlush(socket);
  }

  /** Write the first (often only) line, applying the connection fault switches. */
  private async writeFirst(
    socket: Socket,
    method: string,
    id: string,
    line: string,
  ): Promise<boolean> {
    const s = this.sim.switches;
    const faulty =
      methodNames(s.methodSet).includes(method) &&
      (s.faultMethods === null || s.faultMethods.includes(method));
    if (faulty && s.replyDelayMs > 0) await sleep(s.replyDelayMs);
    if (socket.destroyed) return false;
    if (faulty && s.closeBeforeReply) {
      socket.destroy();
      return false;
    }
    let out = line;
    if (faulty && s.malformedReply) out = `{"id":${JSON.stringify(id)},"result":{"type":`;
    else if (faulty && s.oversizedReplyBytes > 0 && out.length <= s.oversizedReplyBytes)
      out = `${out.slice(0, -1)},"sim_padding":"${"x".repeat(s.oversizedReplyBytes - out.length + 1)}"}`;
    socket.write(`${out}\n`);
    return true;
  }
}
