/**
 * The handshake to the owner's session, one stage per call (lib/acp/acp-handshake.ts): each stage
 * sends exactly its own requests, so a seat can report and time each as a step; `attach` refuses
 * before `initialize` and a passing catalog, with nothing sent; a catalog that does not pass is
 * returned, and `attachSession` turns it into its refusal without ever resuming.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { AcpHandshake, attachSession } from "../../lib/acp/acp-handshake.js";
import {
  refusal,
  removeSeatDirs,
  requests,
  S,
  sessionOptions,
  type World,
  world,
} from "./memory-seat.js";

test.after(removeSeatDirs);

function open(w: World): AcpHandshake {
  return AcpHandshake.open(w.pipe, sessionOptions(w));
}

test("each stage sends only its own requests, in order", async () => {
  const w = world();
  const h = open(w);
  try {
    assert.equal(requests(w), [], "opening sends nothing");
    const init = await h.initialize();
    assert.is(init.agentVersion, "1.0.48");
    assert.equal(requests(w), ["initialize"]);
    const cat = await h.checkCatalog();
    assert.ok(cat.ok);
    assert.equal(requests(w), ["initialize", "_x.ai/session/info", "_x.ai/mcp/list"]);
    const session = await h.attach();
    assert.is(session.sessionId, S);
    assert.is(session.attachment.models?.currentModelId, "grok-build");
    assert.equal(requests(w).slice(3), ["session/resume"]);
  } finally {
    h.close();
    w.controller.release();
  }
});

test("attach before initialize and a passing catalog: ACP_HANDSHAKE_INCOMPLETE, nothing sent", async () => {
  const w = world();
  const h = open(w);
  try {
    assert.is(await refusal(h.attach()), "ACP_HANDSHAKE_INCOMPLETE");
    await h.initialize();
    assert.is(await refusal(h.attach()), "ACP_HANDSHAKE_INCOMPLETE", "no catalog yet");
    assert.not.ok(requests(w).includes("session/resume"));
  } finally {
    h.close();
    w.controller.release();
  }
});

test("a catalog that does not pass is returned; attach and attachSession refuse, never resuming", async () => {
  const linear = (w: World): World => {
    w.agent.on("_x.ai/mcp/list", () => ({
      result: {
        servers: [
          {
            name: "linear",
            type: "http",
            url: "https://mcp.linear.app/mcp",
            session: { enabled: true },
          },
        ],
      },
    }));
    return w;
  };
  const w = linear(world());
  const h = open(w);
  try {
    await h.initialize();
    const cat = await h.checkCatalog();
    assert.is(cat.ok, false);
    assert.is(cat.code, "LINEAR_DIRECT_ENABLED");
    assert.is(await refusal(h.attach()), "ACP_HANDSHAKE_INCOMPLETE");
  } finally {
    h.close();
    w.controller.release();
  }
  const w2 = linear(world());
  try {
    const code = await refusal(attachSession(w2.pipe, sessionOptions(w2)));
    assert.is(code, "LINEAR_DIRECT_ENABLED");
    assert.not.ok(requests(w2).includes("session/resume"));
  } finally {
    w2.controller.release();
  }
});

test.run();
