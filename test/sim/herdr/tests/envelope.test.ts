// @herdr-presets: 0.8.0, 0.9.3
// Request parsing failures worded and positioned as serde_json 1.0.149 words and positions them
// for Herdr's `Request` (id in place, the rest flattened into `Method`), worked out from
// serde_json src/de.rs + src/read.rs and serde's derive for flatten/adjacent tagging.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { parseRequest, rustTrim } from "../envelope.js";
import { METHOD_NAMES, METHOD_NAMES_0_9 } from "../methods.js";
import { formatF32, formatF64 } from "../serde-json-read.js";

function error(line: string): string {
  const r = parseRequest(line, false);
  if (r.ok) throw new Error(`expected an error for ${line}`);
  return r.message;
}

function ok(line: string, testControl = false) {
  const r = parseRequest(line, testControl);
  if (!r.ok) throw new Error(`unexpected error ${r.message}`);
  return r.request;
}

test("missing params, missing id, missing method: positioned after the closing brace", () => {
  assert.is(
    error(`{"id":"x","method":"ping"}`),
    "invalid request: missing field `params` at line 1 column 26",
  );
  assert.is(
    error(`{"method":"ping","params":{}}`),
    "invalid request: missing field `id` at line 1 column 29",
  );
  assert.is(
    error(`{"id":"x","params":{}}`),
    "invalid request: missing field `method` at line 1 column 22",
  );
  assert.is(error(`{"id":"x"}`), "invalid request: missing field `method` at line 1 column 10");
});

test("id must be a string; the type error sits right after the value", () => {
  assert.is(
    error(`{"id":1,"method":"ping","params":{}}`),
    "invalid request: invalid type: integer `1`, expected a string at line 1 column 7",
  );
  assert.is(
    error(`{"id":null,"method":"ping","params":{}}`),
    "invalid request: invalid type: null, expected a string at line 1 column 10",
  );
  assert.is(
    error(`{"id":{"a":1},"method":"ping","params":{}}`),
    "invalid request: invalid type: map, expected a string at line 1 column 6",
  );
  assert.is(
    error(`{"id":"a","id":"b","method":"ping","params":{}}`),
    "invalid request: duplicate field `id` at line 1 column 14",
  );
});

test("params: null and wrong shapes are rejected with serde's words", () => {
  assert.is(
    error(`{"id":"a","method":"ping","params":null}`),
    "invalid request: invalid type: null, expected struct PingParams at line 1 column 40",
  );
  assert.is(
    error(`{"id":"a","method":"pane.get","params":{"pane_id":5}}`),
    "invalid request: invalid type: integer `5`, expected a string at line 1 column 53",
  );
  assert.is(
    error(`{"id":"a","method":"pane.get","params":{}}`),
    "invalid request: missing field `pane_id` at line 1 column 42",
  );
  const report = `{"id":"a","method":"pane.report_agent","params":{"pane_id":"w1:p1","source":"s","agent":"a","state":"done"}}`;
  assert.is(
    error(report),
    `invalid request: unknown variant \`done\`, expected one of \`idle\`, \`working\`, \`blocked\`, \`unknown\` at line 1 column ${report.length}`,
  );
  assert.is(
    error(`{"id":"a","method":"ping","params":{},"method":"ping"}`),
    "invalid request: duplicate field `method` at line 1 column 54",
  );
  assert.is(
    error(`{"id":"a","method":0,"params":{}}`),
    "invalid request: invalid type: integer `0`, expected string or map at line 1 column 33",
  );
  const layout = `{"id":"a","method":"layout.apply","params":{"root":{"type":"tile"}}}`;
  assert.is(
    error(layout),
    `invalid request: unknown variant \`tile\`, expected \`pane\` or \`split\` at line 1 column ${layout.length}`,
  );
});

test("unknown method: every Method variant is listed", () => {
  const line = `{"id":"a","method":"server.info","params":{}}`;
  const expected = `invalid request: unknown variant \`server.info\`, expected one of ${METHOD_NAMES.map((m) => `\`${m}\``).join(", ")} at line 1 column 45`;
  assert.is(error(line), expected);
  assert.is(METHOD_NAMES.length, 92);
  // sim.* exists only with --test-control, and never shows in Herdr's list.
  assert.ok(
    error(`{"id":"a","method":"sim.configure","params":{}}`).startsWith(
      "invalid request: unknown variant `sim.configure`",
    ),
  );
  assert.is(ok(`{"id":"a","method":"sim.configure","params":{}}`, true).method, "sim.configure");
});

test("0.9's Method enum: the 11 added methods parse, and unknown variants list all 103", () => {
  const added = [
    "product_announcement.dismiss",
    "release_notes.dismiss",
    "command.invoke",
    "client_shell.surface.set",
    "pane.scroll",
    "pane.edit_scrollback",
    "pane.selection.read",
    "pane.copy_motion",
    "pane.copy_search",
    "pane.link.activate",
    "integration.list",
  ];
  assert.is(METHOD_NAMES_0_9.length, METHOD_NAMES.length + added.length);
  for (const m of added) {
    const line = `{"id":"a","method":"${m}","params":{}}`;
    assert.ok(error(line).startsWith(`invalid request: unknown variant \`${m}\``), `0.8: ${m}`);
    const r = parseRequest(line, false, "0.9");
    assert.ok(r.ok && r.request.method === m, `0.9: ${m}`);
  }
  // declaration order: each added method right after the 0.8 method it follows in 0.9
  const at = (m: string) => METHOD_NAMES_0_9.indexOf(m);
  assert.is(at("product_announcement.dismiss"), at("notification.show") + 1);
  assert.is(at("client_shell.surface.set"), at("client.window_title.clear") + 1);
  assert.is(at("pane.copy_search"), at("pane.list") - 1);
  assert.is(at("pane.link.activate"), at("pane.input.set") + 1);
  assert.is(at("integration.list"), at("integration.install") - 1);
  const line = `{"id":"a","method":"server.info","params":{}}`;
  const r = parseRequest(line, false, "0.9");
  assert.is(
    r.ok ? "" : r.message,
    `invalid request: unknown variant \`server.info\`, expected one of ${METHOD_NAMES_0_9.map((m) => `\`${m}\``).join(", ")} at line 1 column 45`,
  );
});

test("syntax errors: serde_json's codes and byte positions", () => {
  assert.is(error(`{"id":"a",}`), "invalid request: trailing comma at line 1 column 11");
  assert.is(error(`{"id":"a"`), "invalid request: EOF while parsing an object at line 1 column 9");
  assert.is(error(`not json`), "invalid request: expected ident at line 1 column 2");
  assert.is(
    error(`{"id":"a","method":"ping","params":{}} x`),
    "invalid request: trailing characters at line 1 column 40",
  );
  assert.is(
    error(`[]`),
    "invalid request: invalid type: sequence, expected struct Request at line 1 column 0",
  );
  assert.is(error(`{id:"a"}`), "invalid request: key must be a string at line 1 column 2");
  assert.is(error(`{"id" "a"}`), "invalid request: expected `:` at line 1 column 7");
  assert.is(error(`{"id":"a" "x":1}`), "invalid request: expected `,` or `}` at line 1 column 11");
  assert.is(error(`{"id":"a\\q"}`), "invalid request: invalid escape at line 1 column 10");
  assert.is(error(`{"id":"a","x":01}`), "invalid request: invalid number at line 1 column 16");
  assert.is(
    error(`{"id":"a","x":1e999}`),
    "invalid request: number out of range at line 1 column 19",
  );
  assert.is(
    error(`{"id":"\ud800"}`.replace("\ud800", "\\ud800")),
    "invalid request: unexpected end of hex escape at line 1 column 14",
  );
  assert.is(
    error(`{"id":"a","x":${"[".repeat(127)}`),
    "invalid request: recursion limit exceeded at line 1 column 141",
  );
});

test("unknown keys are ignored, params may come before method", () => {
  const r = ok(`{"jsonrpc":"2.0","id":"a","params":{"extra":1},"method":"ping"}`);
  assert.equal([r.id, r.method], ["a", "ping"]);
  const g = ok(`{"id":"b","method":"pane.get","params":{"pane_id":"w1:p2","unknown":true}}`);
  assert.equal(g.params, { pane_id: "w1:p2" });
});

test("the line is trimmed like Rust's str::trim (Unicode whitespace, not U+FEFF)", () => {
  assert.is(rustTrim(" \t\u00a0x\u2028\r\n"), "x");
  assert.is(rustTrim("\ufeffx"), "\ufeffx");
});

test("floats print like serde_json (ryu layout)", () => {
  assert.is(formatF32(0.5), "0.5");
  assert.is(formatF32(0.6), "0.6");
  assert.is(formatF32(1), "1.0");
  assert.is(formatF64(1.5), "1.5");
  assert.is(formatF64(1e20), "1e20");
  assert.is(formatF64(-0), "-0.0");
  assert.is(formatF64(0.0001), "0.0001");
});

test.run();
