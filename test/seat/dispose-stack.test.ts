import { test } from "uvu";
import * as assert from "uvu/assert";
import { DisposeStack } from "../../lib/seat/dispose-stack.js";

test("dispose closes what is held, the last taken first, each awaited", async () => {
  const stack = new DisposeStack();
  const order: string[] = [];
  stack.adopt("dir", (v) => order.push(`remove ${v}`));
  stack.defer(async () => {
    await new Promise((r) => setTimeout(r, 5));
    order.push("close watch");
  });
  const handle = stack.adopt({ name: "handle" }, (h) => order.push(`close ${h.name}`));
  assert.is(handle.name, "handle", "adopt returns the value");
  assert.equal(await stack.dispose(), []);
  assert.equal(order, ["close handle", "close watch", "remove dir"]);
  assert.equal(await stack.dispose(), [], "a second dispose has nothing left");
  assert.equal(order.length, 3);
});

test("a released value is someone else's to close: never disposed here", async () => {
  const stack = new DisposeStack();
  const closed: string[] = [];
  const socket = stack.adopt({ id: "socket" }, (s) => closed.push(s.id));
  stack.adopt({ id: "conn" }, (c) => closed.push(c.id));
  stack.release(socket);
  stack.release({ id: "socket" }); // another object with the same shape: not held, no effect
  await stack.dispose();
  assert.equal(closed, ["conn"]);
});

test("one failing disposer does not stop the others; failures are returned, not thrown", async () => {
  const stack = new DisposeStack();
  const closed: string[] = [];
  stack.adopt("a", (v) => closed.push(v));
  stack.defer(() => {
    throw new Error("broken");
  });
  stack.defer(() => Promise.reject(new Error("rejected")));
  stack.adopt("d", (v) => closed.push(v));
  const failures = await stack.dispose();
  assert.equal(closed, ["d", "a"]);
  assert.equal(
    failures.map((e) => (e instanceof Error ? e.message : String(e))),
    ["rejected", "broken"],
  );
});

test.run();
