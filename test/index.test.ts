/**
 * The package surface: `lib/index.ts` exports the documented API by name, importing it does not
 * load the native addon (/proc/self/maps as the oracle on Linux), and `npm pack` ships only
 * what a consumer needs (dist, prebuilds, binding.gyp, native sources) — never the simulators.
 */
import { spawnSync } from "node:child_process";
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
    v.object({ mapped: v.boolean(), kinds: v.record(v.string(), v.string()) }),
    fresh(`
      const { readFileSync } = await import("node:fs");
      const m = await import(${index});
      const mapped = process.platform === "linux"
        ? /grok[-_]seat[^/]*\\.node/.test(readFileSync("/proc/self/maps", "utf8"))
        : false;
      const names = ["hire", "Seat", "SeatRefusal", "verifyRecord", "processFacts", "socketFacts",
        "peerCredentials", "openProcessHandle", "HerdrClient", "launchPane", "reconcileAgent",
        "connectLeader", "FrameDecoder", "admitVersion", "AcpSession", "Journal", "projectTools",
        "createToolValidator", "ProjectingProxy", "checkPrivateSocket", "checkLeader"];
      const kinds = Object.fromEntries(names.map((n) => [n, typeof m[n]]));
      console.log(JSON.stringify({ mapped, kinds }));
    `),
  );
  assert.is(out.mapped, false, "the addon was mapped by a bare import");
  for (const [name, kind] of Object.entries(out.kinds)) assert.is(kind, "function", name);
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
