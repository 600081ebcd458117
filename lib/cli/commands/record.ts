/**
 * `verify-proof record <seat-record.json>`: re-verify a saved seat against live facts, read-only
 * (lib/seat/verify-seat-record.ts): no connection that registers, no ACP message, no signal, no write.
 * A record that cannot be read or is not a seat record is a usage error (exit 2); a seat whose
 * pane, TUI, leader, socket or active_sessions evidence no longer matches fails (exit 1).
 *
 * JSON: `facts` = { record, sessionId, conversationId, paneId, herdrSocket, tui: {pid, alive},
 * leader: {pid, alive}, socketPath, agent, release }; `checks` as for every command.
 */
import { GrokSeatError, UsageError } from "../../errors.js";
import type { JsonValue } from "../../json.js";
import { systemKernel } from "../../kernel/index.js";
import { trustedHerdrClient } from "../../observe/herdr-trust.js";
import { readSeatRecord } from "../../seat/seat-record.js";
import { checkRecordFile, verifyRecord } from "../../seat/verify-seat-record.js";
import type { Command } from "../command.js";

export const recordCommand: Command = {
  name: "record",
  summary: "re-verify a saved seat record against live facts (read-only)",
  positionals: ["seat-record.json"],
  flags: {
    "herdr-socket": {
      type: "string",
      description: "the Herdr API socket (default: the one in the record)",
    },
  },
  async run(input, progress) {
    const path = input.positionals["seat-record.json"] ?? "";
    let loaded: ReturnType<typeof readSeatRecord>;
    try {
      loaded = readSeatRecord(path);
    } catch (err) {
      if (err instanceof GrokSeatError) {
        throw new UsageError(err.code, err.message, { details: { ...err.context }, cause: err });
      }
      throw err;
    }
    const { record } = loaded;
    const flag = input.flags["herdr-socket"];
    const herdrSocket = typeof flag === "string" ? flag : record.pane.herdr.socketPath;
    progress(`re-verifying seat ${record.sessionId} (pane ${record.pane.pane.paneId}) read-only`);
    const herdr = trustedHerdrClient({ socketPath: herdrSocket }, systemKernel);
    const v = await verifyRecord(record, herdr, systemKernel);
    const release: JsonValue =
      record.release === null
        ? null
        : {
            at: record.release.at,
            tuiExitObserved: record.release.tuiExitObserved,
            leader: {
              action: record.release.leader.action,
              reasons: [...record.release.leader.reasons],
            },
          };
    return {
      subject: "record",
      facts: {
        record: path,
        sessionId: record.sessionId,
        conversationId: record.conversationId,
        paneId: record.pane.pane.paneId,
        herdrSocket,
        tui: { pid: record.pane.process.pid, alive: v.tuiAlive },
        leader: { pid: record.leader.pid, alive: v.leaderAlive },
        socketPath: record.socketPath,
        agent: v.agent === null ? null : { ...v.agent },
        release,
      },
      checks: [checkRecordFile(loaded.file), ...v.checks],
    };
  },
};
