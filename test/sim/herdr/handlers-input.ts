// The input-injection methods: pane.send_text, pane.send_keys, pane.send_input, agent.start
// (since 0.7.5 it types a command line into an idle shell) and agent.prompt. They work (the
// bytes reach the pane's PTY through tmux) and every call is logged by the server, so tests can
// prove a client never used them. Key combos follow src/config/keybinds.rs parse_key_combo;
// bytes are the legacy xterm encodings (Herdr encodes per the pane's keyboard mode).
import { hasControl, interactiveAgentExecutable, parseAgentLabel } from "./agents.js";
import { agentInfo } from "./info.js";
import type {
  agentPromptParams,
  agentStartParams,
  paneSendInputParams,
  paneSendKeysParams,
  paneSendTextParams,
} from "./methods.js";
import type { HerdrSim, PaneLocation } from "./sim.js";
import { errorLine, paneNotFound, successLine } from "./wire.js";

const NAMED: Readonly<Record<string, string>> = {
  space: " ",
  enter: "\r",
  return: "\r",
  esc: "\x1b",
  escape: "\x1b",
  tab: "\t",
  backspace: "\x7f",
  bs: "\x7f",
  left: "\x1b[D",
  right: "\x1b[C",
  up: "\x1b[A",
  down: "\x1b[B",
  minus: "-",
  comma: ",",
  period: ".",
  slash: "/",
  backslash: "\\",
  quote: "'",
  double_quote: '"',
  "double-quote": '"',
  semicolon: ";",
  colon: ":",
  percent: "%",
  ampersand: "&",
  backtick: "`",
  plus: "+",
};
const F_KEYS = [
  "\x1bOP",
  "\x1bOQ",
  "\x1bOR",
  "\x1bOS",
  "\x1b[15~",
  "\x1b[17~",
  "\x1b[18~",
  "\x1b[19~",
  "\x1b[20~",
  "\x1b[21~",
  "\x1b[23~",
  "\x1b[24~",
];

/** A Herdr key combo ("enter", "ctrl+c", "C-c", "alt+x", "shift+tab") as bytes, or null. */
export function encodeKey(raw: string): string | null {
  const key =
    raw.trim() === "C-c" || raw.trim() === "c-c"
      ? "ctrl+c"
      : raw.trim() === "+"
        ? "plus"
        : raw.trim();
  let ctrl = false;
  let alt = false;
  let shift = false;
  let main: string | null = null;
  for (const part of key.split("+")) {
    const t = part.trim();
    if (t === "") return null;
    const lower = t.toLowerCase();
    if (lower === "ctrl" || lower === "control") ctrl = true;
    else if (lower === "alt" || lower === "meta" || lower === "option") alt = true;
    else if (lower === "shift") shift = true;
    else if (main !== null) return null;
    else main = t;
  }
  if (main === null) return null;
  const lower = main.toLowerCase();
  let bytes: string;
  if (lower === "tab" && shift) bytes = "\x1b[Z";
  else if (NAMED[lower] !== undefined) bytes = NAMED[lower] as string;
  else if (Array.from(main).length === 1) {
    let ch = main;
    if (shift || /[A-Z]/.test(ch)) ch = ch.toUpperCase();
    if (ctrl) {
      const code = ch.toLowerCase().charCodeAt(0);
      if (code >= 0x61 && code <= 0x7a) ch = String.fromCharCode(code & 0x1f);
      else if (ch === " " || ch === "@") ch = "\0";
    }
    bytes = ch;
  } else if (/^f\d+$/.test(lower) && F_KEYS[Number(lower.slice(1)) - 1] !== undefined)
    bytes = F_KEYS[Number(lower.slice(1)) - 1] as string;
  else return null;
  return alt ? `\x1b${bytes}` : bytes;
}

async function writeBytes(sim: HerdrSim, loc: PaneLocation, bytes: string): Promise<void> {
  if (bytes === "") return;
  const hex = Array.from(Buffer.from(bytes, "utf8"), (b) => b.toString(16).padStart(2, "0"));
  await sim.tmux.run(["send-keys", "-t", loc.pane.terminal.tmuxPaneId, "-H", ...hex]);
}

function encodeKeys(keys: readonly string[]): { bytes: string } | { bad: string } {
  let bytes = "";
  for (const k of keys) {
    const b = encodeKey(k);
    if (b === null) return { bad: k };
    bytes += b;
  }
  return { bytes };
}

/** The one path of pane.send_text, send_keys and send_input: `text`, then `keys` encoded. */
async function injectInput(
  sim: HerdrSim,
  id: string,
  paneId: string,
  text: string,
  keys: readonly string[],
): Promise<string> {
  const loc = sim.parsePaneId(paneId);
  if (loc === null) return paneNotFound(id, paneId);
  const encoded = encodeKeys(keys);
  if ("bad" in encoded) return errorLine(id, "invalid_key", `unsupported key ${encoded.bad}`);
  await writeBytes(sim, loc, text + encoded.bytes).catch(() => undefined);
  return successLine(id, { type: "ok" });
}

export function sendText(sim: HerdrSim, id: string, p: ReturnType<typeof paneSendTextParams>) {
  return injectInput(sim, id, p.pane_id, p.text, []);
}

export function sendKeys(sim: HerdrSim, id: string, p: ReturnType<typeof paneSendKeysParams>) {
  return injectInput(sim, id, p.pane_id, "", p.keys);
}

export function sendInput(sim: HerdrSim, id: string, p: ReturnType<typeof paneSendInputParams>) {
  return injectInput(sim, id, p.pane_id, p.text, p.keys);
}

function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** agent.start (src/app/agents.rs start_agent): types `<exe> <args>` and Enter into a shell. */
export async function agentStart(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof agentStartParams>,
) {
  const kind = parseAgentLabel(p.kind);
  if (kind === null)
    return errorLine(id, "unsupported_agent_kind", `unsupported interactive agent kind ${p.kind}`);
  if (p.args.some(hasControl))
    return errorLine(
      id,
      "invalid_agent_argument",
      "agent arguments cannot be encoded safely for the target shell",
    );
  const loc = sim.parsePaneId(p.pane_id);
  if (loc === null)
    return errorLine(id, "agent_pane_not_found", `agent target pane ${p.pane_id} not found`);
  const t = loc.pane.terminal;
  if (t.agent.effectiveLabel() !== null || t.agentName !== undefined)
    return errorLine(
      id,
      "agent_pane_busy",
      `agent target pane ${p.pane_id} is not an available shell`,
    );
  if (p.timeout_ms !== undefined && (p.timeout_ms <= 3000 || p.timeout_ms > 300000))
    return errorLine(
      id,
      "invalid_agent_timeout",
      "agent start timeout must be greater than 3000ms and at most 300000ms",
    );
  const argv = [interactiveAgentExecutable(kind), ...p.args];
  t.agentName = p.name;
  await writeBytes(sim, loc, `${argv.map(shellQuote).join(" ")}\r`).catch(() => undefined);
  return successLine(id, {
    type: "agent_started",
    agent: agentInfo(sim, loc.wsIndex, loc.ws, loc.tab, loc.pane, t.agentName),
    argv,
  });
}

function resolveAgentTarget(sim: HerdrSim, target: string): PaneLocation | null {
  const byPane = sim.parsePaneId(target);
  if (byPane !== null) return byPane;
  for (let i = 0; i < sim.workspaces.length; i++) {
    const ws = sim.workspaces[i];
    for (const pane of ws?.panes.values() ?? []) {
      if (pane.terminal.agentName === target || pane.terminal.id === target)
        return sim.locate(i, pane.number);
    }
  }
  return null;
}

/** agent.prompt (src/app/api/agents.rs handle_agent_prompt): the text, then Enter 300 ms later. */
export async function agentPrompt(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof agentPromptParams>,
) {
  if (p.text === "") return errorLine(id, "empty_agent_prompt", "agent prompt must not be empty");
  const loc = resolveAgentTarget(sim, p.target);
  if (loc === null) return errorLine(id, "agent_not_found", `agent target ${p.target} not found`);
  if (loc.pane.terminal.agent.effectiveKnownAgent() === null)
    return errorLine(id, "agent_not_ready", `agent ${p.target} is not ready`);
  await writeBytes(sim, loc, p.text).catch(() => undefined);
  setTimeout(() => void writeBytes(sim, loc, "\r").catch(() => undefined), 300);
  return successLine(id, {
    type: "agent_prompted",
    agent: agentInfo(sim, loc.wsIndex, loc.ws, loc.tab, loc.pane, loc.pane.terminal.agentName),
  });
}
