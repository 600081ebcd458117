import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import { GrokSeatError } from "../../lib/errors.js";
import { parseReply } from "../../lib/herdr/client.js";
import { RESULT_SCHEMAS } from "../../lib/herdr/methods.js";
import {
  LayoutDescriptionSchema,
  layoutWithinBounds,
  MAX_REPLY_LAYOUT_DEPTH,
  MAX_REPLY_LAYOUT_PANES,
} from "../../lib/herdr/wire-pane.js";

const PANE = { type: "pane", pane_id: "w1:p1" };

function split(first: unknown, second: unknown): unknown {
  return { type: "split", direction: "right", ratio: 0.5, first, second };
}

/** A comb whose deepest pane is at `depth` (the root is depth 1): `depth` panes in all. */
function chain(depth: number): unknown {
  let node: unknown = PANE;
  for (let d = 1; d < depth; d++) node = split(PANE, node);
  return node;
}

function description(root: unknown): unknown {
  return { workspace_id: "w1", tab_id: "w1:t1", zoomed: false, focused_pane_id: "w1:p1", root };
}

test("layoutWithinBounds: depth and pane count at and just past the bounds", () => {
  assert.ok(layoutWithinBounds(PANE));
  // Herdr's own limits (depth 16, 24 panes) are well inside.
  assert.ok(layoutWithinBounds(split(chain(15), chain(9))));
  assert.ok(layoutWithinBounds(chain(MAX_REPLY_LAYOUT_DEPTH)));
  assert.not.ok(layoutWithinBounds(chain(MAX_REPLY_LAYOUT_DEPTH + 1)));
  const half = MAX_REPLY_LAYOUT_PANES / 2;
  assert.ok(layoutWithinBounds(split(chain(half), chain(half))));
  assert.not.ok(layoutWithinBounds(split(chain(half), chain(half + 1))));
  // Not a tree at all: left for the schema to refuse.
  assert.ok(layoutWithinBounds(null));
  assert.ok(layoutWithinBounds({ type: "split" }));
});

test("a layout within the bounds parses; one past them is a schema issue, not a throw", () => {
  const ok = v.safeParse(LayoutDescriptionSchema, description(chain(MAX_REPLY_LAYOUT_DEPTH)));
  assert.ok(ok.success);
  const deep = v.safeParse(LayoutDescriptionSchema, description(chain(MAX_REPLY_LAYOUT_DEPTH + 1)));
  assert.not.ok(deep.success);
});

test("a layout.apply reply nested 10^4 (and 10^6) splits deep is HERDR_REPLY_INVALID", () => {
  // Found by T7: LayoutNodeSchema recursed through v.lazy and threw RangeError from ~3,000 levels.
  const node = '{"type":"split","direction":"right","ratio":0.5,"first":{"type":"pane"},"second":';
  for (const depth of [10_000, 1_000_000]) {
    const root = `${node.repeat(depth)}{"type":"pane"}${"}".repeat(depth)}`;
    const line = `{"id":"gs-1","result":{"type":"layout_apply","layout":{"workspace_id":"w","tab_id":"t","zoomed":false,"focused_pane_id":"p","root":${root}}}}`;
    let caught: unknown = null;
    try {
      parseReply(line, "gs-1", "layout.apply", RESULT_SCHEMAS["layout.apply"]);
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof GrokSeatError, `depth ${depth}: ${String(caught)}`);
    assert.is(caught.code, "HERDR_REPLY_INVALID");
  }
});

test.run();
