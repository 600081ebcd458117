/**
 * The consent prediction (lib/grok/consent.ts): a temporary profile is asked again exactly when
 * the profile its login came from holds an answer the server has not acknowledged
 * (util/config/consent.rs `ConsentAnswer.acked`); the owner's own profile is never predicted.
 */
import { parse } from "smol-toml";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { predictConsent, unackedAnswers } from "../../lib/grok/consent.js";
import type { TomlFile } from "../../lib/grok/toml-file.js";

const file = (text: string): TomlFile => ({
  status: "ok",
  path: "config.toml",
  table: parse(text),
});

test("unacknowledged answers are the ones the server still sends", () => {
  const cfg = file(
    [
      "[consent.answers.b]",
      "version = 2",
      "[consent.answers.a]",
      "version = 1",
      "acked = false",
      "[consent.answers.c]",
      "version = 4",
      "acked = true",
    ].join("\n"),
  );
  assert.equal(unackedAnswers(cfg), ["a", "b"]);
  assert.is(predictConsent(cfg), "expected");
});

test("no answers, only acknowledged ones, a missing or broken file, or the owner's own profile: possible", () => {
  assert.is(predictConsent(file("[ui]\npermission_mode = 'default'\n")), "possible");
  assert.is(predictConsent(file("[consent.answers.x]\nversion = 1\nacked = true\n")), "possible");
  assert.is(predictConsent({ status: "missing", path: "config.toml" }), "possible");
  assert.is(predictConsent({ status: "invalid", path: "config.toml", reason: "bad" }), "possible");
  assert.is(predictConsent(file("[consent]\nanswers = 3\n")), "possible");
  assert.is(predictConsent(null), "possible");
});

test.run();
