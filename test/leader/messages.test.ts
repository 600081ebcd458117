import { test } from "uvu";
import * as assert from "uvu/assert";
import { GrokSeatError } from "../../lib/errors.js";
import { encodeFrame } from "../../lib/leader/frame-codec.js";
import {
  acpMessage,
  CLIENT_TYPE,
  controlMessage,
  parseClientMessage,
  parseServerMessage,
  registerMessage,
} from "../../lib/leader/messages.js";
import { codeOf as codeOfError } from "../helpers/error-code.js";
import { GOLDEN, goldenFrame } from "./golden-frames.js";

const codeOf = (fn: () => unknown): string | null => codeOfError(fn, null);

function golden(name: string): string {
  const g = GOLDEN.find((x) => x.name === name);
  if (!g) throw new Error(`no golden ${name}`);
  return g.json;
}

test("our register is fixture 2 byte for byte, with our client_type", () => {
  const expected = golden("register").replace('"my-lib"', `"${CLIENT_TYPE}"`);
  assert.is(encodeFrame(registerMessage()).subarray(4).toString("utf8"), expected);
  assert.ok(encodeFrame(registerMessage("my-lib")).equals(goldenFrame(golden("register"))));
  const caps = registerMessage();
  assert.ok(caps.type === "register");
  if (caps.type === "register") {
    assert.is(caps.mode, "stdio");
    assert.is(caps.capabilities.status_line, true);
    assert.is(caps.capabilities.client_version, null);
  }
});

test("client builders match the golden control and acp frames", () => {
  assert.is(
    JSON.stringify(controlMessage("1", { type: "get_leader_info" })),
    golden("control-get_leader_info"),
  );
  assert.is(
    JSON.stringify(controlMessage("2", { type: "relaunch_for_update", to_version: "1.0.49" })),
    golden("control-relaunch_for_update"),
  );
  const payload = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}';
  assert.is(JSON.stringify(acpMessage(payload)), golden("acp-client"));
});

test("every golden client frame parses with the client schema", () => {
  for (const g of GOLDEN.filter((x) => x.side === "client")) {
    const parsed = parseClientMessage(JSON.parse(g.json));
    assert.is(JSON.stringify(parsed), g.json, g.name);
  }
});

test("legacy registered: ready defaults to true, metadata to null (protocol.rs serde test)", () => {
  const m = parseServerMessage({ type: "registered", client_id: 7 });
  assert.equal(m, {
    type: "registered",
    client_id: 7,
    ready: true,
    leader_protocol_version: null,
    leader_binary_version: null,
    leader_capabilities: null,
  });
});

test("LeaderCapabilities fields default to false / [] (workspace_exposure_capability_defaults_false)", () => {
  const m = parseServerMessage({
    type: "registered",
    client_id: 1,
    leader_protocol_version: 1,
    leader_capabilities: { control_v1: true, runtime_cpu_profile: false, profile_formats: [] },
  });
  assert.ok(m.type === "registered");
  if (m.type === "registered") {
    assert.equal(m.leader_capabilities, {
      control_v1: true,
      runtime_cpu_profile: false,
      profile_formats: [],
      workspace_exposure: false,
      relaunch_v1: false,
    });
  }
});

test("leader_info without cpu_profile_stopping defaults it to false", () => {
  const m = parseServerMessage({
    type: "control_result",
    request_id: "9",
    result: {
      Ok: {
        type: "leader_info",
        pid: 123,
        socket_path: "/tmp/leader.sock",
        lock_path: "/tmp/leader.lock",
        ws_url_suffix: "suffix",
        leader_protocol_version: 1,
        leader_binary_version: "1.2.3",
        profiling_supported: true,
        profiling_compiled_in: true,
        cpu_profile_active: false,
        profile_started_at: null,
        profile_formats: ["svg"],
        some_future_field: 1,
      },
    },
  });
  assert.ok(m.type === "control_result" && "Ok" in m.result);
  if (m.type === "control_result" && "Ok" in m.result && m.result.Ok.type === "leader_info") {
    assert.is(m.result.Ok.cpu_profile_stopping, false);
    assert.not.ok("some_future_field" in m.result.Ok, "unknown fields are dropped, as serde does");
  }
});

test("control Err keeps details only when present", () => {
  const withDetails = parseServerMessage({
    type: "control_result",
    request_id: "1",
    result: { Err: { code: "invalid_frequency", message: "m", details: { max: 4000 } } },
  });
  assert.is(
    JSON.stringify(withDetails),
    '{"type":"control_result","request_id":"1","result":{"Err":{"code":"invalid_frequency","message":"m","details":{"max":4000}}}}',
  );
});

test("unknown message types are a typed error, not a crash", () => {
  assert.is(
    codeOf(() => parseServerMessage({ type: "welcome" })),
    "UNKNOWN_MESSAGE_TYPE",
  );
  assert.is(
    codeOf(() => parseClientMessage({ type: "hello" })),
    "UNKNOWN_MESSAGE_TYPE",
  );
  assert.is(
    codeOf(() => parseServerMessage({ type: "ping" })),
    "UNKNOWN_MESSAGE_TYPE",
  );
  try {
    parseServerMessage({ type: "welcome" });
  } catch (err) {
    assert.ok(err instanceof GrokSeatError);
    assert.equal(err.context, { side: "server", type: "welcome" });
  }
});

test("malformed messages are INVALID_MESSAGE", () => {
  const cases: unknown[] = [
    null,
    [],
    "registered",
    42,
    {},
    { type: 1 },
    { type: "registered" }, // client_id missing
    { type: "registered", client_id: -1 },
    { type: "registered", client_id: 2 ** 60 }, // beyond 2^53: cannot be held exactly
    { type: "registered", client_id: 1, ready: null },
    { type: "acp", payload: { jsonrpc: "2.0" } }, // payload must be a string
    { type: "error", code: 1.5, message: "x" },
    { type: "shutting_down", reason: "reboot", delay_ms: 0 },
    { type: "control_result", request_id: "1", result: { Ok: { type: "nope" } } },
    {
      type: "control_result",
      request_id: "1",
      result: { Ok: { type: "relaunch_declined", reason: "r" }, Err: { code: "c", message: "m" } },
    },
    { type: "control_result", request_id: 1, result: { Err: { code: "c", message: "m" } } },
  ];
  for (const c of cases) {
    assert.is(
      codeOf(() => parseServerMessage(c)),
      "INVALID_MESSAGE",
      JSON.stringify(c),
    );
  }
  assert.is(
    codeOf(() => parseClientMessage({ type: "register", client_type: "x", mode: "tty" })),
    "INVALID_MESSAGE",
  );
  assert.is(
    codeOf(() =>
      parseClientMessage({ type: "control", request_id: "1", command: { type: "reboot" } }),
    ),
    "INVALID_MESSAGE",
  );
});

test("JSON edge cases (docs/design/reliability-plan.md §4) have explicit outcomes", () => {
  // Duplicate keys: JSON.parse keeps the last one. serde would refuse a duplicate `type`; the
  // leader never writes one (serde never serializes duplicates), so this is only a difference in
  // what we would accept from a peer that is not the leader, and it still parses to a known shape.
  assert.is(parseServerMessage(JSON.parse('{"type":"pong","type":"shutdown"}')).type, "shutdown");
  // __proto__ as a key is an own property after JSON.parse and is dropped with the other unknown keys.
  const proto = parseServerMessage(JSON.parse('{"type":"pong","__proto__":{"polluted":1}}'));
  assert.equal(Object.keys(proto), ["type"]);
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  // Numbers beyond 2^53 (or beyond double range) cannot be a u64 we hold exactly.
  assert.is(
    codeOf(() => parseServerMessage(JSON.parse('{"type":"registered","client_id":1e400}'))),
    "INVALID_MESSAGE",
  );
  assert.is(
    codeOf(() =>
      parseServerMessage(JSON.parse('{"type":"registered","client_id":9007199254740993}')),
    ),
    "INVALID_MESSAGE",
  );
  // Deep nesting inside a field we never descend into (`details`) is kept as a value, not walked.
  const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
  const m = parseServerMessage(
    JSON.parse(
      `{"type":"control_result","request_id":"1","result":{"Err":{"code":"c","message":"m","details":${deep}}}}`,
    ),
  );
  assert.is(m.type, "control_result");
  // A lone surrogate escape in a payload survives parsing (serde would refuse it); the ACP layer
  // receives exactly the text the leader sent.
  const lone = parseServerMessage(JSON.parse('{"type":"acp","payload":"\\ud800"}'));
  assert.ok(lone.type === "acp" && lone.payload === "\ud800");
});

test("register without capabilities gets serde's defaults", () => {
  const m = parseClientMessage({ type: "register", client_type: "x", mode: "headless" });
  assert.ok(m.type === "register");
  if (m.type === "register") assert.is(m.capabilities.status_line, false);
});

test.run();
