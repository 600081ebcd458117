import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  activeSessionsPath,
  defaultLeaderSocketPath,
  grokHome,
  lockPathForSocket,
  resolveGrokHome,
} from "../../lib/grok/paths.js";

test('lock path is Path::with_extension("lock") of the socket (leader/lock.rs)', () => {
  const cases: [string, string][] = [
    ["/x/foo.sock", "/x/foo.lock"],
    ["/x/leader.sock", "/x/leader.lock"],
    ["/x/leader-1a2b3c4d.sock", "/x/leader-1a2b3c4d.lock"],
    ["/x/foo", "/x/foo.lock"],
    ["/x/a.b.sock", "/x/a.b.lock"],
    ["/x/.sock", "/x/.sock.lock"],
    ["/x/..sock", "/x/..lock"],
    ["/x/foo.", "/x/foo.lock"],
    ["/x/foo.sock/", "/x/foo.lock"],
    ["/x/foo.sock/.", "/x/foo.lock"],
    ["/x.d/sock", "/x.d/sock.lock"],
    ["relative.sock", "relative.lock"],
    ["/", "/"],
    ["/x/..", "/x/.."],
  ];
  for (const [sock, lock] of cases) assert.is(lockPathForSocket(sock), lock, sock);
});

test("GROK_HOME: env verbatim when non-empty, else <canonical home>/.grok", () => {
  assert.is(resolveGrokHome({ GROK_HOME: "/g/./h" }, "/home/u"), "/g/./h");
  assert.is(resolveGrokHome({ GROK_HOME: "" }, "/home/u"), "/home/u/.grok");
  assert.is(resolveGrokHome({}, "/home/u"), "/home/u/.grok");
  const dir = mkdtempSync(join(tmpdir(), "grok-seat-paths-"));
  try {
    symlinkSync(dir, join(dir, "link"));
    // The home is canonicalized (dunce::canonicalize), GROK_HOME is not.
    assert.is(grokHome({ HOME: join(dir, "link") }), join(dir, ".grok"));
    assert.is(
      grokHome({ HOME: join(dir, "link"), GROK_HOME: join(dir, "link") }),
      join(dir, "link"),
    );
    assert.is(grokHome({ HOME: join(dir, "missing") }), join(dir, "missing", ".grok"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.is(defaultLeaderSocketPath("/g"), "/g/leader.sock");
  assert.is(activeSessionsPath("/g"), "/g/active_sessions.json");
});

test.run();
