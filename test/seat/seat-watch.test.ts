// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * What a ready seat keeps proving after its hire (lib/seat/seat-watch.ts, issue 14), against the
 * simulators:
 *
 * - `seat.selectModel` re-runs the persona check: a switch to a model on an incompatible harness
 *   before the first turn rebuilds the prompt from the new agent's template (the grok simulator
 *   does what session/acp_session_impl/model_switch.rs `handle_rebuild_agent_for_definition`
 *   does: system_prompt.txt and the conversation head rewritten, `<human_rules>` gone). The seat
 *   emits `persona-lost`, the selection refuses PERSONA_NOT_APPLIED and so does every later
 *   delivery. Selecting the model already in use rewrites nothing and keeps the seat.
 * - With the owner's profile the bank lives in the session's memory only: the owner's `/minimal`
 *   makes the TUI load the session again, that load's server list replaces the set
 *   (run_loop.rs `UpdateMcpServers`), Grok pushes `x.ai/mcp/server_status` `config_removed`
 *   (mcp_dispatcher.rs) and the seat emits `bank-lost`; it never adds the bank again. A temporary
 *   profile's config.toml keeps the bank through the same reload: no event.
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { encodeCwdDirname } from "../../lib/grok/session-files.js";
import { hire } from "../../lib/seat/hire.js";
import type { Seat, SeatEvent } from "../../lib/seat/seat.js";
import { typeAsOwner } from "../../scripts/lib/owner.js";
import { waitFor } from "../helpers/grok-sim.js";
import { bankOption, temporaryBankOptions, withStackAndBank } from "./bank.js";
import { refusalOf, type Stack, withStack } from "./stack.js";

const PERSONA =
  "You are the orchestrator's service seat.\nMemory card: model switches are checked.";

function events(seat: Seat): SeatEvent[] {
  const seen: SeatEvent[] = [];
  seat.on((e) => seen.push(e));
  return seen;
}

test("seat.selectModel re-checks the persona: a harness rebuild drops it, persona-lost is emitted and the seat refuses PERSONA_NOT_APPLIED", async () => {
  await withStack(async (stack) => {
    const seat = await hire(stack.options({ persona: PERSONA }));
    const seen = events(seat);
    // The model in use: nothing is rewritten (skip_prompt_rewrite), the persona stays.
    const same = await seat.selectModel({ modelId: "grok-build" });
    assert.is(same.modelId, "grok-build");
    assert.not.ok(seen.some((e) => e.type === "persona-lost"));
    // Before the first turn (after one, Grok refuses an incompatible harness outright).

    const r = await refusalOf(seat.selectModel({ modelId: "grok-codex-sim" }));
    assert.is(r.step, "model");
    assert.is(r.code, "PERSONA_NOT_APPLIED");
    assert.is(r.check, "persona.system_prompt");
    assert.not.ok(JSON.stringify(r.context).includes("Memory card"));
    const dir = `${stack.home.dir}/sessions/${encodeCwdDirname(stack.cwd)}/${seat.sessionId}`;
    assert.not.ok(readFileSync(`${dir}/system_prompt.txt`, "utf8").includes("<human_rules>"));
    const lost = seen.filter((e) => e.type === "persona-lost");
    assert.is(lost.length, 1, "reported once");
    const first = lost[0];
    assert.ok(first?.type === "persona-lost");
    assert.is(first.modelId, "grok-codex-sim");
    assert.is(first.check.check, "persona.system_prompt");
    assert.is(first.check.ok, false);

    const refused = await refusalOf(seat.deliver("after the persona was lost"));
    assert.is(refused.code, "PERSONA_NOT_APPLIED");
    assert.is(refused.step, "deliver");
    assert.is(refused.check, "deliver.persona");
    await seat.release();
  });
});

function activeEntry(seat: Seat): string | undefined {
  try {
    const list: { session_id: string }[] = JSON.parse(
      readFileSync(`${seat.record.profile.grokHome}/active_sessions.json`, "utf8"),
    );
    const e = list.find((x) => x.session_id === seat.sessionId);
    return e === undefined ? undefined : JSON.stringify(e);
  } catch {
    return undefined;
  }
}

/**
 * The owner's /minimal: the TUI re-execs, loads the session again on the same leader and, once
 * loaded, registers it again in active_sessions.json (a new opened_at).
 */
async function reloadAsOwner(stack: Stack, seat: Seat): Promise<void> {
  const before = activeEntry(seat);
  typeAsOwner(stack.herdr.tmuxSocket, seat.record.pane.process.pid, "/minimal");
  await waitFor(
    "the TUI's reload of the session",
    () => {
      const now = activeEntry(seat);
      return now !== undefined && now !== before ? true : undefined;
    },
    15_000,
  );
}

async function bankListed(seat: Seat): Promise<boolean> {
  const list = await seat.acp.mcpServers();
  return list.servers.some(
    (s) => typeof s === "object" && s !== null && Reflect.get(s, "name") === "ops",
  );
}

test("owner's profile: the TUI's next load drops the in-memory bank and the seat emits bank-lost (never re-added)", async () => {
  await withStackAndBank(async (stack, b) => {
    const seat = await hire(stack.options({ mcpBank: bankOption(b) }));
    assert.is(seat.record.bank?.scope, "session");
    const seen = events(seat);
    await reloadAsOwner(stack, seat);
    const lost = await waitFor(
      "the seat's bank-lost event",
      () => seen.find((e) => e.type === "bank-lost"),
      15_000,
    );
    assert.equal(lost, {
      type: "bank-lost",
      name: "ops",
      scope: "session",
      status: "unavailable",
      reason: "config_removed",
    });
    assert.not.ok(await bankListed(seat), "Grok no longer lists the bank");
    // The seat did not add it back: still absent a moment later, one event only.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.not.ok(await bankListed(seat));
    assert.is(seen.filter((e) => e.type === "bank-lost").length, 1);
    await seat.release();
  });
});

test("temporary profile: the bank is in config.toml, the TUI's reload keeps it and no bank-lost is emitted", async () => {
  await withStackAndBank(async (stack, b) => {
    const seat = await hire(temporaryBankOptions(stack, b));
    assert.is(seat.record.bank?.scope, "profile");
    const seen = events(seat);
    await reloadAsOwner(stack, seat);
    // The reload's attach has happened once the TUI registers again; a delivery after it runs.
    const d = await seat.deliver("after the reload");
    assert.is((await d.completed).state, "completed");
    assert.ok(await bankListed(seat));
    assert.not.ok(seen.some((e) => e.type === "bank-lost"));
    await seat.release();
  });
});

test.run();
