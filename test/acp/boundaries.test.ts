/**
 * What this library must never do, checked on its own source and API: start a process (a
 * standalone `grok agent stdio` would be an invisible worker), create a session, or offer
 * `--allow`/`--deny` permission flags (leader mode ignores them, docs/design/grok-leader-protocol.md §12).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { SessionCore } from "../../lib/acp/session-core.js";
import { GrokSeatError } from "../../lib/errors.js";
import { MemoryPipe } from "./helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");
const files = [
  ...readdirSync(join(ROOT, "lib", "acp")).map((f) => join("lib", "acp", f)),
  "lib/grok/catalog.ts",
  "lib/grok/models.ts",
  "lib/grok/prompt-id.ts",
];

test("no process spawning, no permission flags in lib/acp and our lib/grok files", () => {
  for (const f of files) {
    const src = readFileSync(join(ROOT, f), "utf8");
    assert.not.match(src, /child_process|worker_threads|\bspawn\(|\bexecFile\(/, f);
    assert.not.match(src, /["']--(allow|deny)\b/, f);
  }
});

test("session/new is refused by the connection itself", async () => {
  const conn = new SessionCore(new MemoryPipe(), {
    sessionId: "s",
    cwd: "/",
    // The journal is never reached: the request is refused first.
    journal: undefined as never,
    leaderIdentity: "l",
    paneIdentity: "p",
  });
  let code: string | null = null;
  await conn.request("session/new", { cwd: "/", mcpServers: [] }).catch((e: unknown) => {
    code = e instanceof GrokSeatError ? e.code : "OTHER";
  });
  assert.is(code, "SESSION_NEW_FORBIDDEN");
  conn.sdk.close();
});

test.run();
