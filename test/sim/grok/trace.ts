/**
 * GROK_SIM_LOG: one JSON line per event, appended with O_APPEND by every simulator process
 * (leader, TUI, imposter), so a test can count exactly how often a frame or prompt was received.
 * Events: `frame_in` (every frame the leader read, decoded or raw), `agent_in` (every ACP line
 * the in-process agent received), `prompt` (a session/prompt the agent accepted).
 */
import { appendFileSync } from "node:fs";

let target: string | undefined;
let role = "grok";

export function initTrace(path: string | undefined, processRole: string): void {
  target = path;
  role = processRole;
}

export function trace(event: string, fields: Record<string, unknown>): void {
  if (target === undefined) return;
  const line = `${JSON.stringify({ t: Date.now(), pid: process.pid, role, event, ...fields })}\n`;
  try {
    appendFileSync(target, line);
  } catch {
    // Tracing must never change the simulated program's behaviour.
  }
}
