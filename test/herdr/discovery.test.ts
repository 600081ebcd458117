import { test } from "uvu";
import * as assert from "uvu/assert";
import { GrokSeatError } from "../../lib/errors.js";
import {
  discoverSocket,
  herdrConfigDir,
  inferSessionName,
  isValidSessionName,
} from "../../lib/herdr/discovery.js";

const base = { tmpdir: "/tmp", cwd: "/work" };

test("config_dir: XDG_CONFIG_HOME, then HOME/.config, then tmp (src/config/io.rs)", () => {
  assert.is(herdrConfigDir({ ...base, env: { XDG_CONFIG_HOME: "/x", HOME: "/h" } }), "/x/herdr");
  assert.is(herdrConfigDir({ ...base, env: { HOME: "/h" } }), "/h/.config/herdr");
  assert.is(herdrConfigDir({ ...base, env: {} }), "/tmp/herdr");
  // Rust's env::var is Ok("") for an empty variable: the relative "herdr" dir, resolved here.
  assert.is(herdrConfigDir({ ...base, env: { XDG_CONFIG_HOME: "", HOME: "/h" } }), "/work/herdr");
});

test("XDG_RUNTIME_DIR plays no part", () => {
  const d = discoverSocket({ ...base, env: { HOME: "/h", XDG_RUNTIME_DIR: "/run/user/0" } });
  assert.equal(d, {
    socketPath: "/h/.config/herdr/herdr.sock",
    sessionName: "default",
    source: "default",
  });
});

test("order: explicit path, explicit session, HERDR_SOCKET_PATH, HERDR_SESSION, default", () => {
  const env = { HOME: "/h", HERDR_SOCKET_PATH: "/s/api.sock", HERDR_SESSION: "work" };
  assert.equal(discoverSocket({ ...base, env, explicitPath: "rel/herdr.sock" }), {
    socketPath: "/work/rel/herdr.sock",
    sessionName: null,
    source: "explicit_path",
  });
  assert.equal(discoverSocket({ ...base, env, explicitSession: "b" }), {
    socketPath: "/h/.config/herdr/sessions/b/herdr.sock",
    sessionName: "b",
    source: "explicit_session",
  });
  assert.equal(discoverSocket({ ...base, env }), {
    socketPath: "/s/api.sock",
    sessionName: null,
    source: "HERDR_SOCKET_PATH",
  });
  assert.equal(discoverSocket({ ...base, env: { HOME: "/h", HERDR_SESSION: "work" } }), {
    socketPath: "/h/.config/herdr/sessions/work/herdr.sock",
    sessionName: "work",
    source: "HERDR_SESSION",
  });
  assert.equal(discoverSocket({ ...base, env: { HOME: "/h", HERDR_SESSION: "default" } }), {
    socketPath: "/h/.config/herdr/herdr.sock",
    sessionName: "default",
    source: "HERDR_SESSION",
  });
});

test("a verbatim path infers its session name", () => {
  const env = { HOME: "/h", HERDR_SOCKET_PATH: "/h/.config/herdr/sessions/dev/herdr.sock" };
  assert.is(discoverSocket({ ...base, env }).sessionName, "dev");
  assert.is(inferSessionName("/h/.config/herdr/herdr.sock", "/h/.config/herdr"), "default");
  assert.is(inferSessionName("/a/sessions/../herdr.sock", "/h"), null);
});

test("session names: 1-64 bytes of [A-Za-z0-9._-], not . or ..", () => {
  for (const ok of ["a", "dev-1", "x.y_z", "A".repeat(64)]) assert.ok(isValidSessionName(ok), ok);
  for (const bad of ["", ".", "..", "a/b", "a b", "é", "A".repeat(65)]) {
    assert.not.ok(isValidSessionName(bad), bad);
  }
  try {
    discoverSocket({ ...base, env: { HOME: "/h", HERDR_SESSION: "../etc" } });
    assert.unreachable("an invalid session must be refused");
  } catch (err) {
    assert.ok(err instanceof GrokSeatError);
    assert.is(err.code, "HERDR_SESSION_INVALID");
  }
});

test("an empty HERDR_SESSION counts as unset; an empty HERDR_SOCKET_PATH is refused, as Herdr uses it verbatim", () => {
  const d = discoverSocket({ ...base, env: { HOME: "/h", HERDR_SESSION: "" } });
  assert.is(d.source, "default");
  try {
    discoverSocket({ ...base, env: { HOME: "/h", HERDR_SOCKET_PATH: "", HERDR_SESSION: "" } });
    assert.unreachable("an empty HERDR_SOCKET_PATH names no socket; never the default instead");
  } catch (err) {
    assert.ok(err instanceof GrokSeatError);
    assert.is(err.code, "HERDR_SOCKET_PATH_EMPTY");
  }
});

test.run();
