/**
 * Printing a report: one JSON object for --json, else a human table with one line per check
 * (mark, name, reason). Colour only when stdout is a terminal and NO_COLOR is not set
 * (no-color.org: any non-empty value disables colour).
 */
import type { CheckResult } from "../check.js";
import type { JsonValue } from "../json.js";
import type { Report } from "./command.js";

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

function factLines(facts: JsonValue, indent = "  "): string[] {
  if (facts === null || typeof facts !== "object" || Array.isArray(facts)) return [];
  return Object.entries(facts).map(([k, value]) => {
    const shown =
      value !== null && typeof value === "object" && !Array.isArray(value)
        ? Object.entries(value)
            .map(([kk, vv]) => `${kk}=${JSON.stringify(vv)}`)
            .join(" ")
        : JSON.stringify(value);
    return `${indent}${k}: ${shown}`;
  });
}

function checkLine(c: CheckResult, color: boolean, width: number): string {
  const mark = c.ok ? paint(color, "32", "✓ ok  ") : paint(color, "31", "✗ FAIL");
  const reason = c.reason === null ? "" : `  ${c.reason}`;
  return `${mark}  ${c.check.padEnd(width)}${reason}`.trimEnd();
}

export function renderHuman(report: Report, color: boolean): string {
  const ok = reportOk(report);
  const verdict = ok ? paint(color, "32", "PROVEN") : paint(color, "31", "NOT PROVEN");
  const lines = [`${report.subject}: ${verdict}`, ...factLines(report.facts)];
  if (report.error !== undefined) lines.push(`  error: ${report.error.message}`);
  const width = Math.max(0, ...report.checks.map((c) => c.check.length));
  lines.push(...report.checks.map((c) => checkLine(c, color, width)));
  return `${lines.join("\n")}\n`;
}
