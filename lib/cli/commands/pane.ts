/**
 * `verify-proof pane <pane-id>`: prove which process a Herdr pane runs and on which Herdr server.
 * Without `--record` the pane is bound now (pane, shell_pid, kernel facts, session descriptor,
 * agent verdict) and immediately re-verified, so the report shows both the binding checks and
 * every re-verification check. With `--record <file>` (a record from an earlier `--json` run's
 * `facts.record`, or from the library) the pane is re-verified against that record instead.
 * Herdr unreachable or the pane unknown is a failed proof (exit 1), not an I/O error.
 *
 * With an expected agent (`--expect-agent`, or the record's), Herdr's report is not enough: the
 * pane's process, or a member of its foreground job on its terminal, must be that agent's
 * executable as Herdr would detect it (`pane.agent_process`, lib/proof/agent-process.ts), and
 * `facts.agentEvidence.basis` says what the verdict rests on: Herdr's report, the process, both.
 */
import { tmpdir } from "node:os";
import * as v from "valibot";
import type { CheckResult } from "../../check.js";
import { UsageError } from "../../errors.js";
import { discoverSocket } from "../../herdr/discovery.js";
import type { JsonValue } from "../../json.js";
import { FileReadError, readRegularFile, systemKernel } from "../../kernel/index.js";
import { trustedHerdrClient } from "../../observe/herdr-trust.js";
import {
  bindPane,
  type HerdrPaneObservation,
  observeAgentProcess,
  verifyPane,
} from "../../observe/pane.js";
import {
  type AgentProcessSighting,
  agentProcessCheck,
  evidenceBasis,
} from "../../proof/agent-process.js";
import type { AgentVerdict } from "../../proof/agent-reconcile.js";
import {
  isUnavailable,
  type PaneObservation,
  type PaneProofRecord,
  PaneProofRecordSchema,
} from "../../proof/pane.js";
import type { Command, Report } from "../command.js";

/** Any JSON-parsed value as JsonValue, checked rather than cast. */
function json(value: unknown): JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map(json);
  if (typeof value === "object") {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, x] of Object.entries(value)) if (x !== undefined) out[k] = json(x);
    return out;
  }
  return null;
}

function observationFacts(obs: HerdrPaneObservation): { [key: string]: JsonValue } {
  const pane = obs.pane;
  return {
    herdr: json(obs.descriptor),
    pane: isUnavailable(pane)
      ? json(pane)
      : {
          pane_id: pane.pane_id,
          terminal_id: pane.terminal_id,
          workspace_id: pane.workspace_id,
          tab_id: pane.tab_id,
          label: pane.label ?? null,
          agent_status: pane.agent_status,
          agent: Object.hasOwn(pane, "agent") ? json(pane.agent) : "(absent)",
          agent_session: Object.hasOwn(pane, "agent_session")
            ? json(pane.agent_session)
            : "(absent)",
        },
    process: isUnavailable(obs.processInfo)
      ? { process_info: json(obs.processInfo), kernel: json(obs.facts) }
      : {
          shell_pid: obs.processInfo.shell_pid ?? null,
          herdr_tty: obs.processInfo.tty ?? null,
          kernel: json(obs.facts),
        },
  };
}

/** A pane proof record is a few kilobytes; a whole `pane --json` document a few tens. */
const MAX_RECORD_BYTES = 1024 * 1024;

/** Bounded: a FIFO, a device or a huge file is refused, never waited on or read whole. */
function readRecord(path: string): PaneProofRecord {
  let raw: unknown;
  try {
    const { bytes } = readRegularFile(path, MAX_RECORD_BYTES);
    raw = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (cause) {
    const why = cause instanceof FileReadError ? cause.message : "not UTF-8 JSON";
    throw new UsageError("RECORD_UNREADABLE", `cannot read a JSON record from ${path}: ${why}`, {
      details: { path, ...(cause instanceof FileReadError ? { reason: cause.code } : {}) },
      cause,
    });
  }
  // Accept either the record itself or a whole `verify-proof pane --json` document.
  const doc = v.safeParse(v.looseObject({ facts: v.looseObject({ record: v.unknown() }) }), raw);
  const parsed = v.safeParse(PaneProofRecordSchema, doc.success ? doc.output.facts.record : raw);
  if (!parsed.success) {
    throw new UsageError(
      "RECORD_INVALID",
      `${path} is not a pane proof record: ${v.summarize(parsed.issues)}`,
    );
  }
  return parsed.output;
}

function firstError(checks: readonly CheckResult[], obs: PaneObservation): Report["error"] {
  for (const part of [obs.descriptor, obs.pane]) {
    if (isUnavailable(part)) return { code: part.code, message: part.message };
  }
  return checks.length === 0 ? { code: "NO_CHECKS", message: "nothing was checked" } : undefined;
}

/**
 * Which agent the evidence names and what it rests on. With an expected agent, that label;
 * otherwise the label Herdr's verdict accepted, else the one the process shows.
 */
function agentEvidence(
  expected: string | null,
  verdict: AgentVerdict | null,
  seen: AgentProcessSighting,
): JsonValue {
  const herdrLabel = verdict?.ok === true ? verdict.agent : null;
  const label = expected ?? herdrLabel ?? seen.agent;
  return {
    agent: label,
    basis: evidenceBasis(
      label !== null && herdrLabel === label,
      label !== null && seen.agent === label,
    ),
    herdrReport: herdrLabel,
    process: { ...seen },
  };
}

/** With an expected agent, the process must be it too (`pane.agent_process`). */
function processChecks(expected: string | null, seen: AgentProcessSighting): CheckResult[] {
  return expected === null ? [] : [agentProcessCheck(expected, seen)];
}

/** The pane contract names `herdr`, `process` and `agent` at the top level of the JSON too. */
function withTopLevel(report: Report): Report {
  const f = report.facts;
  if (f === null || typeof f !== "object" || Array.isArray(f)) return report;
  return {
    ...report,
    topLevel: { herdr: f.herdr ?? null, process: f.process ?? null, agent: f.agent ?? null },
  };
}

export const paneCommand: Command = {
  name: "pane",
  summary: "prove which process a Herdr pane runs, on which Herdr server, and its agent",
  positionals: ["pane-id"],
  flags: {
    "herdr-socket": { type: "string", description: "the Herdr API socket (default: discovered)" },
    record: { type: "string", description: "re-verify against this saved pane proof record" },
    "expect-agent": {
      type: "string",
      description: "require this agent (e.g. grok): Herdr's report and the pane's process",
    },
    "expect-session": {
      type: "string",
      description: "require this native session (an id; an absolute path for pi and omp)",
    },
  },
  async run(input, progress) {
    const paneId = input.positionals["pane-id"] ?? "";
    const flag = (name: string): string | undefined => {
      const f = input.flags[name];
      return typeof f === "string" ? f : undefined;
    };
    const found = discoverSocket({
      explicitPath: flag("herdr-socket"),
      env: process.env,
      tmpdir: tmpdir(),
      cwd: process.cwd(),
    });
    const client = trustedHerdrClient({ socketPath: found.socketPath }, systemKernel);
    const recordPath = flag("record");
    let record: PaneProofRecord | null = null;
    let bindChecks: readonly CheckResult[] = [];
    if (recordPath !== undefined) {
      record = readRecord(recordPath);
      if (record.pane.paneId !== paneId) {
        throw new UsageError(
          "RECORD_PANE_MISMATCH",
          `the record is for pane ${record.pane.paneId}`,
        );
      }
    } else {
      progress(`binding pane ${paneId} on ${found.socketPath}`);
      const bound = await bindPane(client, systemKernel, {
        paneId,
        launch: null,
        sessionName: found.sessionName,
        nativeSessionId: flag("expect-session") ?? null,
        expectedAgent: flag("expect-agent") ?? null,
      });
      record = bound.record;
      bindChecks = bound.checks;
      if (record === null) {
        const failed = bound.checks.find((c) => !c.ok);
        const agent = bound.checks.find((c) => c.check === "pane.agent");
        const obs = bound.observation;
        const expected = flag("expect-agent") ?? null;
        const seen =
          isUnavailable(obs.facts) || isUnavailable(obs.processInfo)
            ? null
            : observeAgentProcess(systemKernel, obs.facts, obs);
        return withTopLevel({
          subject: "pane",
          facts: {
            ...observationFacts(obs),
            agent: agent === undefined ? null : agent.received,
            ...(seen === null ? {} : { agentEvidence: agentEvidence(expected, null, seen) }),
            record: null,
          },
          checks: [...bound.checks, ...(seen === null ? [] : processChecks(expected, seen))],
          error: {
            code: "PANE_NOT_BOUND",
            message: failed?.reason ?? "the pane could not be bound",
          },
        });
      }
    }
    progress(`re-verifying pane ${paneId}`);
    const verified = await verifyPane(client, systemKernel, record);
    const expected = flag("expect-agent") ?? record.expectedAgent;
    const names = new Set(verified.checks.map((c) => c.check));
    const checks = [
      ...bindChecks.filter((c) => !names.has(c.check)),
      ...verified.checks,
      ...processChecks(expected, verified.agentProcess),
    ];
    const error = firstError(checks, verified.observation);
    return withTopLevel({
      subject: "pane",
      facts: {
        ...observationFacts(verified.observation),
        agent: verified.agent === null ? null : { ...verified.agent },
        agentEvidence: agentEvidence(expected, verified.agent, verified.agentProcess),
        record: json(record),
      },
      checks,
      ...(error === undefined ? {} : { error }),
    });
  },
};
