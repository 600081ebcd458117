// @platform linux: uses the Herdr simulator, whose panes read /proc
/**
 * The persona (issue 14) through a whole hire against the simulators: `--rules=<text>` reaches
 * the TUI's argv (read back from /proc), Grok's own files hold it inside `<human_rules>`, step
 * `persona` proves it, and the text never reaches the seat record or a progress event (only its
 * digest). Refusals: a persona over one argument's limit (nothing launched), and a model switch
 * that rebuilds the prompt without the rules (the simulator does what model_switch.rs does).
 */
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { encodeCwdDirname } from "../../lib/grok/session-files.js";
import { hire } from "../../lib/seat/hire.js";
import { HIRE_STEPS } from "../../lib/seat/hire-events.js";
import { MAX_PERSONA_BYTES } from "../../lib/seat/persona.js";
import type { SeatRefusal } from "../../lib/seat/refusal.js";
import { readSeatRecord } from "../../lib/seat/seat-record.js";
import { refusalOf, type Stack, withStack } from "./stack.js";

const PERSONA =
  "You are the orchestrator's service seat.\nMemory card: the build is green; café ☕.";

function cmdline(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
}

test("a persona rides --rules=<text>, is proven in system_prompt.txt and the conversation head, and only its digest is recorded", async () => {
  await withStack(async (stack) => {
    const seat = await hire(stack.options({ persona: PERSONA }));
    const proven = stack.events.filter((e) => e.type === "proven").map((e) => e.step);
    assert.equal(
      proven,
      HIRE_STEPS.filter((s) => !["model", "mcp_bank", "skills"].includes(s)),
    );
    const r = seat.record;
    // The real TUI argv carries the text, as one element (the kernel's view).
    const argv = cmdline(r.pane.process.pid);
    assert.is(argv[argv.length - 1], `--rules=${PERSONA}`);
    // Grok's own files hold it inside <human_rules>.
    const dir = `${stack.home.dir}/sessions/${encodeCwdDirname(stack.cwd)}/${seat.sessionId}`;
    const sp = readFileSync(`${dir}/system_prompt.txt`, "utf8");
    assert.ok(sp.includes(`<human_rules>\n${PERSONA}\n</human_rules>`), sp);
    const checks = r.proofs.persona ?? [];
    assert.equal(
      checks.map((c) => [c.check, c.ok]),
      [
        ["persona.system_prompt", true],
        ["persona.chat_head", true],
      ],
    );
    assert.is(r.persona?.bytes, Buffer.byteLength(PERSONA));
    assert.is(r.persona?.skillsNote, false);
    // Never the text: not in the record file, not in any progress event.
    const file = readFileSync(seat.recordPath, "utf8");
    assert.not.ok(file.includes("Memory card"), "the record holds no persona text");
    assert.not.ok(JSON.stringify(stack.events).includes("Memory card"), "no event holds it");
    assert.ok(
      r.pane.launch?.argv.at(-1)?.startsWith(`--rules=<persona sha256:${r.persona?.sha256}`),
      JSON.stringify(r.pane.launch?.argv),
    );
    assert.is(readSeatRecord(seat.recordPath).record.persona?.sha256, r.persona?.sha256);
    await seat.release();
  });
});

test("a persona over one argument's limit refuses PERSONA_INVALID before anything is launched", async () => {
  await withStack(async (stack) => {
    const refusal = await refusalOf(
      hire(stack.options({ persona: "x".repeat(MAX_PERSONA_BYTES + 1) })),
    );
    assert.is(refusal.code, "PERSONA_INVALID");
    assert.is(refusal.step, "preflight");
    assert.is(refusal.check, "persona.length");
    assert.equal(stack.simPids(), [], "no TUI was launched");
    // At the limit it is accepted by preflight (and by the kernel: execve does not fail).
    const seat = await hire(stack.options({ persona: "y".repeat(MAX_PERSONA_BYTES) }));
    assert.is(seat.record.persona?.bytes, MAX_PERSONA_BYTES);
    await seat.release();
  });
});

/** A hire with the persona and a switch to `modelId`: refused at step persona, PERSONA_NOT_APPLIED. */
async function refusedAtPersona(stack: Stack, modelId: string): Promise<SeatRefusal> {
  const refusal = await refusalOf(hire(stack.options({ persona: PERSONA, model: { modelId } })));
  assert.is(refusal.step, "persona");
  assert.is(refusal.code, "PERSONA_NOT_APPLIED");
  return refusal;
}
test("a model switch to an incompatible harness drops the rules: step persona refuses PERSONA_NOT_APPLIED", async () => {
  await withStack(async (stack) => {
    const refusal = await refusedAtPersona(stack, "grok-codex-sim");
    assert.is(refusal.check, "persona.system_prompt");
    assert.not.ok(JSON.stringify(refusal.context).includes("Memory card"));
  });
});

test("a compatible model switch rewrites only the conversation head: step persona refuses on persona.chat_head", async () => {
  await withStack(async (stack) => {
    const refusal = await refusedAtPersona(stack, "grok-4.5");
    assert.is(refusal.check, "persona.chat_head");
  });
});

test.run();
