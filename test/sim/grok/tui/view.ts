/**
 * What the simulated TUI shows: a header, the conversation (prompts from every client, streamed
 * agent text, tool calls), the shared queue, an owner modal for a pending permission / question /
 * plan approval, and the input line. Rendered as plain ANSI so a person attaching to the tmux
 * pane sees the session, and so tests can read it with `tmux capture-pane`.
 */

export interface Modal {
  requestId: unknown;
  kind: "permission" | "question" | "plan_approval";
  toolCallId: string;
  title: string;
}

interface Entry {
  role: "user" | "agent" | "tool" | "note";
  promptId: string | undefined;
  text: string;
}

const BOLD = "\x1b[1m";
const DIM = "\x1b[2m";
const CYAN = "\x1b[36m";
const YELLOW = "\x1b[33m";
const GREEN = "\x1b[32m";
const RESET = "\x1b[0m";

export class View {
  header = "";
  status = "";
  input = "";
  queue: string[] = [];
  modal: Modal | undefined;
  /** A startup screen (sign-in, consent, folder trust) that holds the session (gates.ts). */
  gate: string[] = [];
  private readonly entries: Entry[] = [];
  private readonly tools = new Map<string, Entry>();
  private scheduled = false;
  private readonly out: NodeJS.WriteStream;

  constructor(out: NodeJS.WriteStream) {
    this.out = out;
  }

  user(text: string, promptId: string | undefined): void {
    this.entries.push({ role: "user", promptId, text });
    this.render();
  }

  agentChunk(text: string, promptId: string | undefined): void {
    const last = this.entries[this.entries.length - 1];
    if (last !== undefined && last.role === "agent" && last.promptId === promptId)
      last.text += text;
    else this.entries.push({ role: "agent", promptId, text });
    this.render();
  }

  tool(id: string, title: string, status: string): void {
    const existing = this.tools.get(id);
    if (existing !== undefined) {
      existing.text = `${existing.text.replace(/ \[[a-z_]+\]$/, "")} [${status}]`;
    } else {
      const entry: Entry = { role: "tool", promptId: undefined, text: `${title} [${status}]` };
      this.tools.set(id, entry);
      this.entries.push(entry);
    }
    this.render();
  }

  note(text: string): void {
    this.entries.push({ role: "note", promptId: undefined, text });
    this.render();
  }

  /** Coalesce bursts of updates into one repaint. */
  render(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => {
      this.scheduled = false;
      this.paint();
    }, 15);
  }

  paint(): void {
    const rows = this.out.rows ?? 40;
    const cols = this.out.columns ?? 120;
    const body: string[] = [];
    for (const e of this.entries) {
      const prefix =
        e.role === "user"
          ? `${BOLD}${CYAN}› ${RESET}`
          : e.role === "agent"
            ? "  "
            : e.role === "tool"
              ? `  ${YELLOW}⚙ ${RESET}`
              : `  ${DIM}`;
      for (const line of wrap(e.text, cols - 4)) body.push(`${prefix}${line}${RESET}`);
    }
    const footer: string[] = [];
    for (const line of this.gate) footer.push(`${BOLD}${YELLOW}${line.slice(0, cols - 2)}${RESET}`);
    if (this.queue.length > 0) {
      footer.push(`${DIM}Queued:${RESET}`);
      for (const [i, q] of this.queue.entries()) footer.push(`  ${i + 1}. ${q.slice(0, cols - 8)}`);
    }
    if (this.modal !== undefined) {
      const what =
        this.modal.kind === "permission"
          ? "Permission requested"
          : this.modal.kind === "question"
            ? "Question"
            : "Plan approval requested";
      footer.push(
        `${BOLD}${YELLOW}${what}: ${this.modal.title} — press y to allow, n to deny${RESET}`,
      );
    }
    footer.push(`${GREEN}>${RESET} ${this.input}`);
    const head = [
      `${BOLD}${this.header}${RESET}`,
      `${DIM}${this.status}${RESET}`,
      "─".repeat(Math.min(cols, 80)),
    ];
    const room = Math.max(1, rows - head.length - footer.length);
    const visible = body.slice(-room);
    const screen = [
      ...head,
      ...visible,
      ...new Array(Math.max(0, room - visible.length)).fill(""),
      ...footer,
    ];
    this.out.write(`\x1b[H\x1b[2J${screen.join("\r\n")}`);
  }
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    let line = raw;
    while (line.length > width && width > 10) {
      out.push(line.slice(0, width));
      line = line.slice(width);
    }
    out.push(line);
  }
  return out;
}
