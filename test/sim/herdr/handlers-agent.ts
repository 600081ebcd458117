// pane.report_agent, pane.report_agent_session, pane.clear_agent_authority, pane.release_agent
// (src/app/api/panes.rs + the AppState dispatch in src/app/actions.rs). All answer `ok` once the
// pane id resolves and the agent label is not empty: the reply never says whether the report
// took effect. `herdr:grok` (like herdr:claude, herdr:codex, ...) is a reserved session-only
// source: its `pane.report_agent` state is discarded and only the session id is stored. Custom
// sources never produce `agent_session`. Official pairs cannot be released.
import {
  isOfficialAgentSource,
  normalizeReportedAgentLabel,
  normalizeSessionStartSource,
  sessionRefFromReport,
} from "./agents.js";
import type {
  paneClearAgentAuthorityParams,
  paneReleaseAgentParams,
  paneReportAgentParams,
  paneReportAgentSessionParams,
} from "./methods.js";
import type { HerdrSim } from "./sim.js";
import { errorLine, paneNotFound, successLine } from "./wire.js";

const ok = (id: string) => successLine(id, { type: "ok" });
const invalidAgent = (id: string) =>
  errorLine(id, "invalid_agent", "agent label must not be empty");

type PaneLoc = NonNullable<ReturnType<HerdrSim["parsePaneId"]>>;

/** `ok` after `apply` once the pane id resolves; `pane_not_found` otherwise. */
function onPane(sim: HerdrSim, id: string, paneId: string, apply: (loc: PaneLoc) => void): string {
  const loc = sim.parsePaneId(paneId);
  if (loc === null) return paneNotFound(id, paneId);
  apply(loc);
  return ok(id);
}

/** As `onPane`, and the agent label must normalize to a non-empty one (`invalid_agent`). */
function onPaneAgent(
  sim: HerdrSim,
  id: string,
  p: { pane_id: string; agent: string },
  apply: (loc: PaneLoc, label: string) => void,
): string {
  const loc = sim.parsePaneId(p.pane_id);
  if (loc === null) return paneNotFound(id, p.pane_id);
  const label = normalizeReportedAgentLabel(p.agent);
  if (label === null) return invalidAgent(id);
  apply(loc, label);
  return ok(id);
}

export function reportAgent(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof paneReportAgentParams>,
): string {
  return onPaneAgent(sim, id, p, (loc, label) => {
    const ref = sessionRefFromReport(p.source, label, p.agent_session_id, p.agent_session_path);
    sim.emitAgentChange(
      loc,
      loc.pane.terminal.agent.reportAgent(p.source, label, p.state, ref, p.seq),
    );
  });
}

export function reportAgentSession(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof paneReportAgentSessionParams>,
): string {
  return onPaneAgent(sim, id, p, (loc, label) => {
    const ref = sessionRefFromReport(p.source, label, p.agent_session_id, p.agent_session_path);
    const start = normalizeSessionStartSource(p.session_start_source);
    sim.emitAgentChange(
      loc,
      loc.pane.terminal.agent.reportSession(p.source, label, ref, p.seq, start),
    );
  });
}

export function clearAgentAuthority(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof paneClearAgentAuthorityParams>,
): string {
  return onPane(sim, id, p.pane_id, (loc) =>
    sim.emitAgentChange(loc, loc.pane.terminal.agent.clearAuthority(p.source, p.seq)),
  );
}

export function releaseAgent(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof paneReleaseAgentParams>,
): string {
  return onPaneAgent(sim, id, p, (loc, label) => {
    if (!isOfficialAgentSource(p.source, label))
      sim.emitAgentChange(loc, loc.pane.terminal.agent.release(p.source, label, p.seq));
  });
}
