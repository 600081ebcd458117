import { test } from "uvu";
import * as assert from "uvu/assert";
import { AcpError, type AcpErrorCode } from "../lib/acp/acp-error.js";
import { parseInitializeResult } from "../lib/acp/handshake.js";
import {
  failureOf,
  failureOr,
  GrokSeatError,
  isErrorCode,
  UsageError,
  WireError,
} from "../lib/errors.js";
import { GrokError } from "../lib/grok/grok-error.js";
import { parseGrokVersion } from "../lib/grok/version.js";
import { parseReply } from "../lib/herdr/client.js";
import { HerdrError, type HerdrErrorCode } from "../lib/herdr/herdr-error.js";
import { PongSchema } from "../lib/herdr/wire-envelope.js";
import { LeaderError } from "../lib/leader/leader-error.js";
import { parseServerMessage } from "../lib/leader/messages.js";

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("did not throw");
}

test("failureOf: a typed error's code, a system error's errno code, null for anything else", () => {
  assert.equal(failureOf(new GrokSeatError("X_CODE", "typed")), {
    code: "X_CODE",
    message: "typed",
  });
  assert.equal(failureOf(new WireError("herdr", "pane_not_found", "gone")), {
    code: "pane_not_found",
    message: "gone",
  });
  const enoent = Object.assign(new Error("no such file"), { code: "ENOENT" });
  assert.equal(failureOf(enoent), { code: "ENOENT", message: "no such file" });
  assert.is(failureOf(new Error("a bug")), null);
  assert.is(failureOf(Object.assign(new Error("numeric"), { code: 42 })), null);
  assert.is(failureOf({ code: "ENOENT", message: "not an Error" }), null);
  assert.is(failureOf("a string"), null);
  assert.equal(failureOr(enoent, "EIO"), { code: "ENOENT", message: "no such file" });
  assert.equal(failureOr(new Error("a bug"), "EIO"), { code: "EIO", message: "a bug" });
  assert.equal(failureOr(42, "UNKNOWN"), { code: "UNKNOWN", message: "42" });
});

test("isErrorCode narrows to the codes named, any code without names", () => {
  const e = new UsageError("INVALID_ARGUMENT", "bad");
  assert.ok(isErrorCode(e, "INVALID_ARGUMENT"));
  assert.not.ok(isErrorCode(e, "OTHER"));
  assert.ok(isErrorCode(e));
  assert.not.ok(isErrorCode(new Error("plain")));
});

test("each layer throws its own class, so instanceof narrows the code to the layer's union", () => {
  const herdr = thrown(() => parseReply("not json", "id-1", "ping", PongSchema));
  assert.ok(herdr instanceof HerdrError && herdr instanceof GrokSeatError);
  if (herdr instanceof HerdrError) {
    const code: HerdrErrorCode = herdr.code;
    assert.is(code, "HERDR_REPLY_MALFORMED");
    assert.is(herdr.name, "HerdrError");
  }
  const leader = thrown(() => parseServerMessage({ type: "nope" }));
  assert.ok(leader instanceof LeaderError);
  assert.is(leader instanceof LeaderError ? leader.code : null, "UNKNOWN_MESSAGE_TYPE");
  const grok = thrown(() => parseGrokVersion("not grok\n"));
  assert.ok(grok instanceof GrokError);
  assert.is(grok instanceof GrokError ? grok.code : null, "GROK_VERSION_UNPARSEABLE");
  const acp = thrown(() =>
    parseInitializeResult({ protocolVersion: 2, agentCapabilities: { loadSession: true } }),
  );
  assert.ok(acp instanceof AcpError);
  const code: AcpErrorCode | null = acp instanceof AcpError ? acp.code : null;
  assert.is(code, "ACP_PROTOCOL_UNSUPPORTED");
});

test.run();
