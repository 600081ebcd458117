import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  atPointer,
  escapeToken,
  fragmentToPointer,
  isJsonObject,
  pointerOf,
  resolveLocalRef,
  tokensOf,
} from "../../lib/mcp/json-pointer.js";

test("escape, build and split pointers (RFC 6901 §3)", () => {
  assert.is(escapeToken("a/b~c"), "a~1b~0c");
  assert.is(pointerOf(["properties", "a/b", 0]), "/properties/a~1b/0");
  assert.is(pointerOf([]), "");
  assert.equal(tokensOf("/properties/a~1b/~01"), ["properties", "a/b", "~1"]);
  assert.equal(tokensOf(""), []);
  assert.is(tokensOf("no-slash"), undefined);
});

test("fragmentToPointer decodes percent-encoding but never creates a separator", () => {
  assert.is(fragmentToPointer("#/a%20b/c"), "/a b/c");
  assert.is(fragmentToPointer("#"), "");
  assert.is(fragmentToPointer("#/x~1y/%25"), "/x~1y/%");
  assert.is(fragmentToPointer("#/bad%zz"), "/bad%zz");
});

test("atPointer follows own keys and array indexes only", () => {
  const doc = JSON.parse('{"a":[{"b":1}],"__proto__":{"c":2}}');
  assert.is(atPointer(doc, "/a/0/b"), 1);
  assert.is(atPointer(doc, "/__proto__/c"), 2);
  assert.is(atPointer({}, "/toString"), undefined);
  assert.is(atPointer(doc, "/a/01"), undefined);
  assert.is(atPointer(doc, "/a/5"), undefined);
});

test("resolveLocalRef: root, pointer, percent-encoded pointer, anchors, root $id", () => {
  const root = {
    $id: "https://example.com/s",
    $defs: { "a b": { type: "string" }, n: { $anchor: "num", type: "number" } },
    definitions: { old: { $id: "#legacy", type: "null" } },
  };
  assert.is(resolveLocalRef(root, "#"), root);
  assert.is(resolveLocalRef(root, "#/$defs/a%20b"), root.$defs["a b"]);
  assert.is(resolveLocalRef(root, "#num"), root.$defs.n);
  assert.is(resolveLocalRef(root, "#legacy"), root.definitions.old);
  assert.is(resolveLocalRef(root, "https://example.com/s#/$defs/n"), root.$defs.n);
  assert.is(resolveLocalRef(root, "https://elsewhere.example/x#/$defs/n"), undefined);
  assert.is(resolveLocalRef(root, "#/$defs/missing"), undefined);
  assert.is(resolveLocalRef(root, "#%E0%A4%A"), undefined);
});

test("isJsonObject", () => {
  assert.ok(isJsonObject({}));
  assert.not.ok(isJsonObject([]));
  assert.not.ok(isJsonObject(null));
  assert.not.ok(isJsonObject("x"));
});

test.run();
