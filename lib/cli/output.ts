/**
 * The one printer of verify-proof: one JSON object for --json (the contract, never escaped or
 * reshaped here), else a report a person reads: the facts as aligned `name  value` lines per
 * group, one line per check with its reason, the verdict last. Every string printed in human
 * mode, on stdout or stderr, goes through `escapeForTerminal` (most come from outside). Colour
 * only when the stream is a terminal and NO_COLOR is not set (no-color.org: any non-empty value
 * disables colour).
 */
import type { CheckResult } from "../check.js";
import type { JsonValue } from "../json.js";
import type { Report } from "./command.js";
import { escapeForTerminal } from "./escape.js";

export interface OutputStream {
  write(chunk: string): unknown;
  readonly isTTY?: boolean;
}

export function useColor(
  stream: OutputStream,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  const noColor = env.NO_COLOR;
  return stream.isTTY === true && (noColor === undefined || noColor === "");
}

export function reportOk(report: Report): boolean {
  return report.error === undefined && report.checks.length > 0 && report.checks.every((c) => c.ok);
}

/**
 * The --json document: `{ ok, subject, facts, checks, error? }`, plus the sections a command's
 * contract names at the top level (`Report.topLevel`), which never replace those five keys.
 */
export function reportJson(report: Report): JsonValue {
  const out: { [key: string]: JsonValue } = {
    ok: reportOk(report),
    subject: report.subject,
    facts: report.facts,
    checks: report.checks.map((c) => ({
      check: c.check,
      ok: c.ok,
      expected: c.expected,
      received: c.received,
      reason: c.reason,
    })),
  };
  if (report.error !== undefined) {
    out.error = { code: report.error.code, message: report.error.message };
  }
  for (const [key, value] of Object.entries(report.topLevel ?? {})) {
    if (!Object.hasOwn(out, key)) out[key] = value;
  }
  return out;
}

const paint = (on: boolean, code: string, s: string): string =>
  on ? `\u001b[${code}m${s}\u001b[0m` : s;

/** The widest name column a group is padded to; a longer name just pushes its value along. */
const MAX_NAME_WIDTH = 40;
/** An expected/received value shown inline on a check line is cut here. */
const MAX_INLINE = 160;

type Row = readonly [name: string, value: string];
interface Group {
  readonly title: string;
  readonly rows: readonly Row[];
}

/** A scalar as text. A number under a key named `mode` is a file mode: shown in octal. */
function scalar(value: JsonValue, key: string): string {
  if (typeof value === "string") return escapeForTerminal(value);
  if (typeof value === "number" && key === "mode" && Number.isInteger(value) && value >= 0) {
    return `0${value.toString(8).padStart(3, "0")}`;
  }
  return String(value);
}

function isObject(v: JsonValue): v is { [key: string]: JsonValue } {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Flatten a value into `name  value` rows: nested keys joined by dots, arrays by index. */
function rows(value: JsonValue, name: string, key: string, out: Row[]): void {
  if (Array.isArray(value)) {
    if (value.every((x) => x === null || typeof x !== "object")) {
      out.push([name, value.length === 0 ? "(none)" : value.map((x) => scalar(x, key)).join(", ")]);
    } else {
      for (const [i, x] of value.entries()) rows(x, `${name}[${i}]`, key, out);
    }
    return;
  }
  if (isObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) out.push([name, "(none)"]);
    for (const [k, v] of entries)
      rows(v, name === "" ? escapeForTerminal(k) : `${name}.${escapeForTerminal(k)}`, k, out);
    return;
  }
  out.push([name, scalar(value, key)]);
}

/** A small object (at most two scalars) stays on its parent's rows as `key.field`. */
function isSmall(v: { [key: string]: JsonValue }): boolean {
  const values = Object.values(v);
  return values.length <= 2 && values.every((x) => x === null || typeof x !== "object");
}

/**
 * The facts as groups: the scalars of an object are one group, each larger nested object a group
 * of its own titled with its path (`leader.registered`), so no value is ever a JSON blob.
 */
function collect(
  title: string,
  obj: { [key: string]: JsonValue },
  top: boolean,
  out: Group[],
): void {
  const own: Row[] = [];
  const nested: [string, { [key: string]: JsonValue }][] = [];
  for (const [k, v] of Object.entries(obj)) {
    if (isObject(v) && Object.keys(v).length > 0 && !isSmall(v)) nested.push([k, v]);
    else rows(v, escapeForTerminal(k), k, own);
  }
  if (own.length > 0) out.push({ title, rows: own });
  for (const [k, v] of nested) {
    const key = escapeForTerminal(k);
    collect(top ? key : `${title}.${key}`, v, false, out);
  }
}

function factGroups(subject: string, facts: JsonValue): Group[] {
  if (facts === null) return [];
  const out: Group[] = [];
  if (!isObject(facts)) {
    const r: Row[] = [];
    rows(facts, "value", "value", r);
    return [{ title: subject, rows: r }];
  }
  collect(Object.hasOwn(facts, subject) ? "summary" : subject, facts, true, out);
  return out;
}

function groupLines(group: Group, color: boolean): string[] {
  const width = Math.min(MAX_NAME_WIDTH, Math.max(0, ...group.rows.map(([n]) => n.length)));
  return [
    paint(color, "1", group.title),
    ...group.rows.map(([n, v]) => `  ${n.padEnd(width)}  ${v}`.trimEnd()),
  ];
}

/** A value on one line: scalars as text, arrays `[a, b]`, objects `k=v k=v`; cut when long. */
function inline(value: JsonValue): string {
  let text: string;
  if (Array.isArray(value)) text = `[${value.map(inline).join(", ")}]`;
  else if (isObject(value)) {
    const r: Row[] = [];
    rows(value, "", "", r);
    text = r.map(([n, v]) => `${n}=${v}`).join(" ");
  } else text = scalar(value, "");
  return text.length > MAX_INLINE ? `${text.slice(0, MAX_INLINE - 1)}…` : text;
}

function checkLine(c: CheckResult, color: boolean, width: number): string {
  const mark = c.ok ? paint(color, "32", "✓ ok  ") : paint(color, "31", "✗ FAIL");
  const name = escapeForTerminal(c.check).padEnd(width);
  if (c.ok) return `${mark}  ${name}`.trimEnd();
  const why = c.reason === null ? "" : escapeForTerminal(c.reason);
  return `${mark}  ${name}  ${why} (expected ${inline(c.expected)}, got ${inline(c.received)})`;
}

/** `CODE: message`, once: kernel messages already start with their code. */
export function errorText(code: string, message: string): string {
  const text = message.startsWith(`${code}: `) ? message : `${code}: ${message}`;
  return escapeForTerminal(text);
}

/** A line for stderr (progress, a failure, a usage error), escaped. */
export function stderrLine(prefix: string, message: string): string {
  return `${prefix}: ${escapeForTerminal(message)}\n`;
}

export function renderHuman(report: Report, color: boolean): string {
  const ok = reportOk(report);
  const lines: string[] = [];
  for (const g of factGroups(report.subject, report.facts)) lines.push(...groupLines(g, color));
  if (report.checks.length > 0) {
    if (lines.length > 0) lines.push("");
    const width = Math.max(0, ...report.checks.map((c) => escapeForTerminal(c.check).length));
    lines.push(...report.checks.map((c) => checkLine(c, color, width)));
  }
  if (report.error !== undefined) {
    lines.push("", `error: ${errorText(report.error.code, report.error.message)}`);
  }
  const failed = report.checks.filter((c) => !c.ok).length;
  const total = report.checks.length;
  const tally = ok
    ? `${total} check${total === 1 ? "" : "s"} passed`
    : failed > 0
      ? `${failed} of ${total} checks failed`
      : total === 0
        ? "no check could be made"
        : "the subject could not be read";
  const verdict = ok ? paint(color, "1;32", "PROVEN") : paint(color, "1;31", "NOT PROVEN");
  lines.push("", `${report.subject}: ${verdict} (${tally})`);
  return `${lines.join("\n")}\n`;
}
