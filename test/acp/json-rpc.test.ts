import { test } from "uvu";
import * as assert from "uvu/assert";
import { encodeAcpPayload, parseAcpPayload, toSdkMessage } from "../../lib/acp/json-rpc.js";
import { GrokSeatError } from "../../lib/errors.js";

test("requests, notifications and both response forms classify", () => {
  assert.equal(parseAcpPayload('{"jsonrpc":"2.0","id":"2|1","method":"initialize","params":{}}'), {
    kind: "request",
    id: "2|1",
    method: "initialize",
    params: {},
  });
  assert.equal(
    parseAcpPayload('{"jsonrpc":"2.0","method":"_x.ai/queue/changed","params":{"a":1}}'),
    {
      kind: "notification",
      method: "_x.ai/queue/changed",
      params: { a: 1 },
    },
  );
  assert.equal(parseAcpPayload('{"jsonrpc":"2.0","id":7,"result":null}'), {
    kind: "response",
    id: 7,
    ok: true,
    result: null,
  });
  const err = parseAcpPayload(
    '{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"leader_starting","data":"Retry"}}',
  );
  assert.equal(err, {
    kind: "response",
    id: 1,
    ok: false,
    error: { code: -32002, message: "leader_starting", data: "Retry" },
  });
});

test("everything else is a typed ACP_MALFORMED_PAYLOAD, never a throw", () => {
  for (const bad of [
    "",
    "{",
    "null",
    "[]",
    '[{"jsonrpc":"2.0","method":"x"}]',
    '"text"',
    '{"jsonrpc":"1.0","method":"x"}',
    '{"jsonrpc":"2.0","id":{},"method":"x"}',
    '{"jsonrpc":"2.0","id":1}',
    '{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}',
    '{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}',
    '{"jsonrpc":"2.0","method":7}',
  ]) {
    const r = parseAcpPayload(bad);
    assert.ok(r instanceof GrokSeatError, bad);
    assert.is(r instanceof GrokSeatError && r.code, "ACP_MALFORMED_PAYLOAD", bad);
  }
});

test("encoding is single-line JSON even when strings hold newlines", () => {
  const payload = encodeAcpPayload({ jsonrpc: "2.0", method: "m", params: { text: "a\nb\r\nc" } });
  assert.not.match(payload, /[\r\n]/);
  assert.equal(JSON.parse(payload).params.text, "a\nb\r\nc");
});

test("toSdkMessage round-trips the classified message", () => {
  const src = '{"jsonrpc":"2.0","id":3,"method":"fs/read_text_file","params":{"path":"/x"}}';
  const m = parseAcpPayload(src);
  assert.ok(!(m instanceof GrokSeatError));
  if (!(m instanceof GrokSeatError)) assert.equal(toSdkMessage(m), JSON.parse(src));
});

test.run();
