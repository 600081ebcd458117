/**
 * The package surface: `lib/index.ts` exports the seat API by name and none of the layers'
 * internals, importing it does not load the native addon (/proc/self/maps as the oracle on
 * Linux), each subpath of package.json `exports` is built from its lib/entry/ module, the MCP
 * proxy is a declared bin that runs, and `npm pack` ships only what a consumer needs (dist,
 * prebuilds, binding.gyp, native sources) — never the simulators.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

function fresh(code: string): unknown {
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    cwd: root,
    encoding: "utf8",
  });
  assert.is(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split("\n").pop() ?? "null");
}

test("importing the package index exports the API and does not load the addon", () => {
  const index = JSON.stringify(join(root, "lib", "index.ts"));
  const out = v.parse(
    v.object({
      mapped: v.boolean(),
      kinds: v.record(v.string(), v.string()),
      leaked: v.array(v.string()),
      seat: v.array(v.string()),
    }),
    fresh(`
      const { readFileSync } = await import("node:fs");
      const m = await import(${index});
      const mapped = process.platform === "linux"
        ? /grok[-_]seat[^/]*\\.node/.test(readFileSync("/proc/self/maps", "utf8"))
        : false;
      const names = ["hire", "resume", "resumeChecks", "Seat", "SeatRefusal", "SeatRegistry",
        "verifyRecord", "readSeatRecord", "writeSeatRecord", "ownerStepFor", "GrokSeatError",
        "UsageError", "WireError", "isErrorCode", "failureOf", "isTerminal", "isConsumed"];
      const internals = ["tuiArgv", "createRuntimeDir", "encodeFrame", "Journal", "AcpSession",
        "HerdrClient", "processFacts", "projectTools", "ProjectingProxy", "checkLeader",
        "connectLeader", "dispatch", "checkResume", "decideLeaderStop", "buildSkillManifest"];
      const kinds = Object.fromEntries(names.map((n) => [n, typeof m[n]]));
      const leaked = internals.filter((n) => n in m);
      const seat = Object.getOwnPropertyNames(m.Seat.prototype);
      console.log(JSON.stringify({ mapped, kinds, leaked, seat }));
    `),
  );
  assert.is(out.mapped, false, "the addon was mapped by a bare import");
  for (const [name, kind] of Object.entries(out.kinds)) assert.is(kind, "function", name);
  assert.equal(out.leaked, [], "the root entry is the seat API, not the layers' internals");
  for (const method of ["deliver", "cancel", "reconcile", "pendingOwnerActions", "release"]) {
    assert.ok(out.seat.includes(method), `Seat.${method}`);
  }
});

const Pkg = v.object({
  exports: v.record(
    v.string(),
    v.union([v.string(), v.object({ types: v.string(), default: v.string() })]),
  ),
  bin: v.record(v.string(), v.string()),
});
const pkg = v.parse(Pkg, JSON.parse(readFileSync(join(root, "package.json"), "utf8")));

test("each subpath export is built from its lib/entry module and exports its layer's API", () => {
  const wanted: Record<string, string[]> = {
    kernel: ["processFacts", "socketFacts", "peerCredentials", "openProcessHandle", "readProcess"],
    proof: ["checkPrivateSocket", "checkLeader", "bindPaneProof", "reconcileAgent", "pass"],
    herdr: [
      "HerdrClient",
      "discoverSocket",
      "launchPane",
      "bindPane",
      "verifyPane",
      "watchPaneExit",
    ],
    leader: ["connectLeader", "connectProven", "proveLeader", "FrameDecoder", "admitVersion"],
    acp: ["AcpHandshake", "attachSession", "AcpSession", "Journal", "dispatch", "assertPromptId"],
    mcp: ["projectTools", "createToolValidator", "ProjectingProxy", "serveLoopbackHttp"],
  };
  for (const [name, fns] of Object.entries(wanted)) {
    const entry = pkg.exports[`./${name}`];
    assert.equal(
      entry,
      { types: `./dist/entry/${name}.d.ts`, default: `./dist/entry/${name}.js` },
      name,
    );
    const src = JSON.stringify(join(root, "lib", "entry", `${name}.ts`));
    const kinds = v.parse(
      v.record(v.string(), v.string()),
      fresh(`
        const m = await import(${src});
        console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(fns)}.map((n) => [n, typeof m[n]]))));
      `),
    );
    for (const fn of fns) assert.is(kinds[fn], "function", `${name}: ${fn}`);
  }
});

test("the built entries share one copy of each module: an error from grok-seat/kernel is the root's class", () => {
  // scripts/bundle.mjs bundles each entry with code splitting; without it, two entries would each
  // carry their own GrokSeatError and `instanceof` across them would fail.
  const dist = (p: string): string => JSON.stringify(join(root, "dist", p));
  assert.ok(existsSync(join(root, "dist", "chunks")), "built by npm run build (tsc + bundle)");
  const r = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `
        const rootApi = await import(${dist("index.js")});
        const kernel = await import(${dist("entry/kernel.js")});
        let err;
        try { kernel.processFacts(-1); } catch (e) { err = e; }
        console.log(JSON.stringify({
          usage: err instanceof rootApi.UsageError,
          base: err instanceof rootApi.GrokSeatError,
          code: err?.code ?? null,
        }));
      `,
    ],
    { cwd: root, encoding: "utf8" },
  );
  assert.is(r.status, 0, r.stderr);
  const out = v.parse(
    v.object({ usage: v.boolean(), base: v.boolean(), code: v.nullable(v.string()) }),
    JSON.parse(r.stdout.trim()),
  );
  assert.equal(out, { usage: true, base: true, code: out.code });
  assert.ok(out.code !== null, "processFacts(-1) throws a typed error");
});

test("the MCP proxy is the declared bin grok-seat-mcp-proxy, and the built file runs", () => {
  assert.is(pkg.bin["grok-seat-mcp-proxy"], "./dist/mcp/proxy-main.js");
  assert.is(pkg.bin["verify-proof"], "./dist/cli/verify-proof.js");
  const source = readFileSync(join(root, "lib", "mcp", "proxy-main.ts"), "utf8");
  assert.ok(source.startsWith("#!/usr/bin/env node\n"), "a node shebang on the bin's source");
  const built = join(root, "dist", "mcp", "proxy-main.js");
  assert.ok(existsSync(built), "built by npm run build (tsc)");
  const r = spawnSync(process.execPath, [built, "--http", "99999", "--", "true"], {
    encoding: "utf8",
    timeout: 30_000,
  });
  assert.is(r.status, 2, r.stderr);
  assert.match(r.stderr, /usage: grok-seat-mcp-proxy/);
});

test("npm pack ships dist, prebuilds, binding.gyp and native sources, never tests or simulators", () => {
  const r = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: root,
    encoding: "utf8",
  });
  assert.is(r.status, 0, r.stderr);
  const [pack] = v.parse(
    v.tuple([v.object({ files: v.array(v.object({ path: v.string() })) })]),
    JSON.parse(r.stdout),
  );
  const paths = pack.files.map((f) => f.path);
  assert.ok(paths.includes("binding.gyp"));
  assert.ok(paths.includes("dist/mcp/proxy-main.js"), "the bin ships");
  for (const name of ["kernel", "proof", "herdr", "leader", "acp", "mcp"]) {
    assert.ok(paths.includes(`dist/entry/${name}.js`), `the ${name} entry ships`);
  }
  assert.ok(paths.includes("native/proofs.h"));
  assert.ok(paths.includes("package.json"));
  for (const p of paths) {
    assert.ok(
      /^(dist\/|prebuilds\/|native\/|binding\.gyp$|package\.json$|README\.md$|LICENSE$)/.test(p),
      `unexpected file in the package: ${p}`,
    );
  }
});

test.run();
