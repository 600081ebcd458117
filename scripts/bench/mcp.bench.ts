/**
 * MCP projection figures (issue 7 "Performance"), in one run:
 *   1. projecting a 1,000-tool bank (the operator bank's 20 tools, renamed and repeated, never-
 *      object ones included): budget 20 ms; plus building the validators for the same bank;
 *   2. validation throughput on the bank's root-anyOf tool (`open_target`), 100k argument objects,
 *      80% valid: budget 50,000 calls/s for our validator, side by side with cfworker alone,
 *      ajv `Ajv2020` (strict:false, allErrors:true, ownProperties:true, + ajv-formats) and the MCP
 *      SDK's default `AjvJsonSchemaValidator` (draft-07 `Ajv`), on the same inputs;
 *   3. where ajv would be wrong: every call case of the bank (test/fixtures/mcp/operator-calls.json)
 *      through each validator, listing each disagreement with the expected verdict
 *      (docs/design/acp-mcp-toolchain.md §3.1: unevaluatedProperties, prefixItems + items:false,
 *      dependentRequired, draft-07 `$schema` compile errors, required "__proto__").
 *
 *   npm run bench -- mcp
 */
import { cpus, loadavg } from "node:os";
import { Validator } from "@cfworker/json-schema";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsMod from "ajv-formats";
import { projectTools } from "../../lib/mcp/project.js";
import type { RawTool } from "../../lib/mcp/raw-tool.js";
import { isSdkTool } from "../../lib/mcp/sdk-guard.js";
import { createToolValidator } from "../../lib/mcp/validate.js";
import { loadBankTools, loadCallCases } from "../../test/sim/mcp-bank/fixture.js";
import { figure, row, summarize } from "./lib/stats.js";

const PROJECT_RUNS = Number(process.env.MCP_BENCH_PROJECT_RUNS ?? 60);
const CALLS = Number(process.env.MCP_BENCH_CALLS ?? 100_000);
const PROJECT_BUDGET_MS = 20;
const VALIDATE_BUDGET_OPS = 50_000;

const out = (line = ""): void => {
  process.stdout.write(`${line}\n`);
};
const ms = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

// ── 1. projection ──────────────────────────────────────────────────────────────────────────
const base = loadBankTools();
const bank1000: unknown[] = [];
for (let i = 0; bank1000.length < 1000; i++)
  for (const t of base)
    if (isObject(t) && bank1000.length < 1000) bank1000.push({ ...t, name: `${t.name}_${i}` });

for (let i = 0; i < 10; i++) projectTools(bank1000);
const projectMs: number[] = [];
let projection = projectTools(bank1000);
for (let i = 0; i < PROJECT_RUNS; i++) {
  // Collect first, so one run does not pay for the garbage of the runs before it.
  globalThis.gc?.();
  const t0 = process.hrtime.bigint();
  projection = projectTools(bank1000);
  projectMs.push(ms(t0));
}
const listed = projection.tools.map((t) => t.listed);
const guardMs: number[] = [];
for (let i = 0; i < 20; i++) {
  const t0 = process.hrtime.bigint();
  for (const t of listed) isSdkTool(t);
  guardMs.push(ms(t0));
}
const buildMs: number[] = [];
for (let i = 0; i < 10; i++) {
  const t0 = process.hrtime.bigint();
  createToolValidator(projection.tools.map((t) => t.original));
  buildMs.push(ms(t0));
}
const p = summarize(projectMs);
const g = summarize(guardMs);
const b = summarize(buildMs);
const projectOk = p.median <= PROJECT_BUDGET_MS;

out(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")} on ${cpus().length} cores (other work on the machine shows up as p99 outliers)`,
);
out(
  `1,000-tool bank: ${projection.tools.length} listed, ${projection.issues.length} reported (never-object)`,
);
const w1 = [52, 10, 10];
out(row(["", "median ms", "p99 ms"], w1));
out(row(["projectTools(1,000 tools)", p.median, p.p99], w1));
out(row(["  fastest run", p.min, ""], w1));
out(row(["  of which: SDK ToolSchema check of the listed tools", g.median, g.p99], w1));
out(row(["createToolValidator(1,000 originals) (on list change)", b.median, b.p99], w1));
out(`projection budget ${PROJECT_BUDGET_MS} ms: ${projectOk ? "met" : "MISSED"}`);
figure("mcp.project_1000.median", p.median, "ms", {
  n: PROJECT_RUNS,
  budget: PROJECT_BUDGET_MS,
  ok: projectOk,
});
figure("mcp.project_1000.p99", p.p99, "ms", { n: PROJECT_RUNS });
figure("mcp.project_1000.sdk_guard.median", g.median, "ms");
figure("mcp.validator_build_1000.median", b.median, "ms");

// ── 2. validation throughput on a union schema ────────────────────────────────────────────
const originals: RawTool[] = projectTools(base).tools.map((t) => t.original);
const union = originals.find((t) => t.name === "open_target");
if (union === undefined || !isObject(union.inputSchema)) throw new Error("open_target missing");
const unionSchema = union.inputSchema;

/** 80% valid, 20% invalid in four ways (type, format, both keys, neither). */
const inputs: Record<string, unknown>[] = [];
for (let i = 0; i < CALLS; i++) {
  const k = i % 10;
  if (k < 4) inputs.push({ path: `/srv/data/${i}` });
  else if (k < 8) inputs.push({ url: `https://x.ai/item/${i}` });
  else if (k === 8) inputs.push(i % 20 === 8 ? { path: i } : { url: "not a uri" });
  else inputs.push(i % 20 === 9 ? {} : { path: "/a", url: "https://x.ai/" });
}

const ours = createToolValidator(originals);
const cf = new Validator(structuredClone(unionSchema), "2020-12", false);
const cfShort = new Validator(structuredClone(unionSchema), "2020-12", true);
const ajv = new Ajv2020({ strict: false, allErrors: true, ownProperties: true, logger: false });
addFormatsMod.default(ajv);
let t0 = process.hrtime.bigint();
const ajvFn = ajv.compile(structuredClone(unionSchema));
const ajvCompileMs = ms(t0);
t0 = process.hrtime.bigint();
const sdkFn = new AjvJsonSchemaValidator().getValidator(structuredClone(unionSchema));
const sdkCompileMs = ms(t0);

const contenders: readonly (readonly [string, string, (x: Record<string, unknown>) => boolean])[] =
  [
    [
      "ours",
      "ours: createToolValidator().check (cfworker + messages)",
      (x) => ours.check("open_target", x).ok,
    ],
    [
      "ours_with_error",
      "ours + the typed error of each refusal (the proxy path)",
      (x) => {
        const r = ours.check("open_target", x);
        return r.ok || r.error.code === "";
      },
    ],
    ["cfworker", "cfworker Validator 2020-12, shortCircuit false", (x) => cf.validate(x).valid],
    [
      "cfworker_short",
      "cfworker Validator 2020-12, shortCircuit true",
      (x) => cfShort.validate(x).valid,
    ],
    ["ajv2020", "ajv Ajv2020 strict:false allErrors ownProperties", (x) => ajvFn(x)],
    ["sdk_ajv", "MCP SDK AjvJsonSchemaValidator (draft-07 Ajv)", (x) => sdkFn(x).valid],
  ];

const ROUNDS = 4;
const results: { slug: string; name: string; rounds: number[]; warm: number; valid: number }[] = [];
for (const [slug, name, fn] of contenders) {
  const rounds: number[] = [];
  let valid = 0;
  for (let round = 0; round < ROUNDS; round++) {
    valid = 0;
    globalThis.gc?.();
    const start = process.hrtime.bigint();
    for (const x of inputs) if (fn(x)) valid++;
    rounds.push(CALLS / (ms(start) / 1000));
  }
  // Round 0 is cold (JIT); the figure is the median of the warm rounds.
  results.push({ slug, name, rounds, warm: summarize(rounds.slice(1)).median, valid });
}
const oursOps = results[0]?.warm ?? 0;
const validateOk = oursOps >= VALIDATE_BUDGET_OPS;

out();
out(
  `validation throughput: open_target (root anyOf of two closed objects), ${CALLS.toLocaleString("en-US")} calls, 80% valid`,
);
const w2 = [58, 12, 12, 8, 8];
const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");
out(row(["", "cold /s", "warm /s", "vs ours", "valid"], w2));
for (const r of results)
  out(
    row(
      [
        r.name,
        fmt(r.rounds[0] ?? 0),
        fmt(r.warm),
        `${(r.warm / oursOps).toFixed(2)}x`,
        String(r.valid),
      ],
      w2,
    ),
  );
out(
  `compile one schema: ajv2020 ${ajvCompileMs.toFixed(2)} ms, SDK ajv ${sdkCompileMs.toFixed(2)} ms (cfworker: no compile step)`,
);
out(
  `validation budget ${VALIDATE_BUDGET_OPS.toLocaleString("en-US")} calls/s: ${validateOk ? "met" : "MISSED"}`,
);
for (const r of results)
  figure(`mcp.validate_union.${r.slug}`, Math.round(r.warm), "calls/s", {
    n: CALLS,
    rounds: ROUNDS - 1,
    valid: r.valid,
    ...(r.slug === "ours"
      ? { budget: VALIDATE_BUDGET_OPS, ok: validateOk }
      : { ratio_vs_ours: r.warm / oursOps }),
  });
figure("mcp.ajv2020.compile_one", ajvCompileMs, "ms");

// ── 3. where ajv would be wrong ───────────────────────────────────────────────────────────
type Verdict = boolean | "compile error";
function ajvVerdicts(compile: (schema: Record<string, unknown>) => (x: unknown) => boolean) {
  const fns = new Map<string, ((x: unknown) => boolean) | "compile error">();
  for (const t of originals) {
    const s = t.inputSchema;
    const schema = s === true ? {} : isObject(s) ? structuredClone(s) : { not: {} };
    try {
      fns.set(t.name, compile(schema));
    } catch {
      fns.set(t.name, "compile error");
    }
  }
  return (tool: string, x: unknown): Verdict => {
    const f = fns.get(tool);
    return f === undefined || f === "compile error" ? "compile error" : f(x);
  };
}
const ajv2 = new Ajv2020({ strict: false, allErrors: true, ownProperties: true, logger: false });
addFormatsMod.default(ajv2);
const ajv2020Verdict = ajvVerdicts((s) => {
  const f = ajv2.compile(s);
  return (x) => f(x);
});
const sdkAjv = new AjvJsonSchemaValidator();
const sdkVerdict = ajvVerdicts((s) => {
  const f = sdkAjv.getValidator(s);
  return (x) => f(x).valid;
});

const cases = loadCallCases();
const tally = { ours: 0, ajv2020: 0, sdk: 0 };
const wrong: string[][] = [];
const show = (v: Verdict): string =>
  v === true ? "valid" : v === false ? "invalid" : "compile error";
for (const c of cases) {
  const o = ours.check(c.tool, c.arguments).ok;
  const a = ajv2020Verdict(c.tool, c.arguments);
  const s = sdkVerdict(c.tool, c.arguments);
  if (o === c.valid) tally.ours++;
  if (a === c.valid) tally.ajv2020++;
  if (s === c.valid) tally.sdk++;
  if (o !== c.valid || a !== c.valid || s !== c.valid)
    wrong.push([`${c.tool}: ${c.note}`, show(c.valid), show(o), show(a), show(s)]);
}
out();
out(`correctness on the bank's ${cases.length} call cases (expected verdicts from the fixture):`);
const w3 = [62, 9, 9, 14, 14];
out(row(["case", "expected", "ours", "ajv2020", "SDK ajv"], w3));
for (const r of wrong) out(row(r, w3));
out(
  row(
    [
      `correct`,
      "",
      `${tally.ours}/${cases.length}`,
      `${tally.ajv2020}/${cases.length}`,
      `${tally.sdk}/${cases.length}`,
    ],
    w3,
  ),
);
figure("mcp.correct_cases.ours", tally.ours, "cases", { of: cases.length });
figure("mcp.correct_cases.ajv2020", tally.ajv2020, "cases", { of: cases.length });
figure("mcp.correct_cases.sdk_ajv", tally.sdk, "cases", { of: cases.length });
