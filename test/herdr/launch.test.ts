/**
 * `launchPane` on the wire, against the in-test Herdr: exactly which requests are sent, in which
 * order, and how a reply that does not match our launch is refused. The launch into real panes
 * is covered end to end in test/herdr/pane-proof.test.ts.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { GrokSeatError } from "../../lib/errors.js";
import { HerdrClient } from "../../lib/herdr/client.js";
import { launchPane } from "../../lib/herdr/launch.js";
import { type FakeConn, startFakeHerdr } from "./fake-server.js";

const workspace = (id: string) => ({
  workspace_id: id,
  number: 2,
  label: "seat",
  focused: true,
  pane_count: 1,
  tab_count: 1,
  active_tab_id: `${id}:t1`,
  agent_status: "unknown",
});
const shellPane = (id: string) => ({
  pane_id: `${id}:p1`,
  terminal_id: "term_1",
  workspace_id: id,
  tab_id: `${id}:t1`,
  focused: true,
  agent_status: "unknown",
  revision: 0,
});

/** Answers like Herdr 0.8.0 would; `echo` lets a test make Herdr echo another command. */
function herdrLike(echo?: string[]) {
  return (conn: FakeConn): void => {
    const req = conn.request ?? {};
    const params = (req.params ?? {}) as {
      workspace_id?: string;
      tab_id?: string;
      root?: { label?: string; cwd?: string; command?: string[] };
    };
    if (req.method === "workspace.create") {
      conn.reply({
        id: req.id,
        result: {
          type: "workspace_created",
          workspace: workspace("w2"),
          tab: {
            tab_id: "w2:t1",
            workspace_id: "w2",
            number: 1,
            label: "1",
            focused: true,
            pane_count: 1,
            agent_status: "unknown",
          },
          root_pane: shellPane("w2"),
        },
      });
    } else if (req.method === "layout.apply") {
      const ws = params.tab_id?.split(":")[0] ?? params.workspace_id ?? "w1";
      const root = params.root ?? {};
      conn.reply({
        id: req.id,
        result: {
          type: "layout_apply",
          layout: {
            workspace_id: ws,
            tab_id: `${ws}:t2`,
            zoomed: false,
            focused_pane_id: `${ws}:p2`,
            root: {
              type: "pane",
              pane_id: `${ws}:p2`,
              ...(root.label === undefined ? {} : { label: root.label }),
              ...(root.cwd === undefined ? {} : { cwd: root.cwd }),
              command: echo ?? root.command,
            },
          },
        },
      });
    }
  };
}

/** Run `body` against a fake Herdr answering as a real one does (`herdrLike()`), stopped after it. */
async function withHerdrLike(
  body: (fake: Awaited<ReturnType<typeof startFakeHerdr>>) => Promise<void>,
): Promise<void> {
  const fake = await startFakeHerdr(herdrLike());
  try {
    await body(fake);
  } finally {
    await fake.stop();
  }
}

test("layout.apply carries label, cwd, env and the argv; the pane id comes from the reply", () =>
  withHerdrLike(async (fake) => {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    const r = await launchPane(client, {
      argv: ["grok", "--leader"],
      label: "grok leader",
      cwd: "/home/dev/repo",
      env: { HERDR_AGENT: "grok" },
      tabLabel: "leader",
      target: { workspaceId: "w1" },
    });
    assert.equal(
      fake.conns.map((c) => c.request?.method),
      ["layout.apply"],
    );
    assert.equal(fake.conns[0]?.request?.params, {
      focus: true,
      root: {
        type: "pane",
        command: ["grok", "--leader"],
        label: "grok leader",
        cwd: "/home/dev/repo",
        env: { HERDR_AGENT: "grok" },
      },
      tab_label: "leader",
      workspace_id: "w1",
    });
    assert.equal(
      { paneId: r.paneId, tabId: r.tabId, argv: r.argv, label: r.label, cwd: r.cwd },
      {
        paneId: "w1:p2",
        tabId: "w1:t2",
        argv: ["grok", "--leader"],
        label: "grok leader",
        cwd: "/home/dev/repo",
      },
    );
  }));

test("a new workspace: workspace.create, then layout.apply replacing its only tab", () =>
  withHerdrLike(async (fake) => {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    const r = await launchPane(client, {
      argv: ["sleep", "60"],
      target: { newWorkspace: { label: "seat" } },
    });
    assert.equal(
      fake.conns.map((c) => c.request?.method),
      ["workspace.create", "layout.apply"],
    );
    assert.equal(fake.conns[0]?.request?.params, { focus: true, label: "seat" });
    const applied = fake.conns[1]?.request?.params as { tab_id?: string } | undefined;
    assert.is(applied?.tab_id, "w2:t1");
    assert.is(r.createdWorkspaceId, "w2");
    assert.is(r.paneId, "w2:p2");
  }));

test("a reply echoing another command is refused", async () => {
  const fake = await startFakeHerdr(herdrLike(["bash"]));
  try {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    try {
      await launchPane(client, { argv: ["sleep", "60"] });
      assert.unreachable();
    } catch (err) {
      assert.ok(err instanceof GrokSeatError);
      assert.is(err.code, "LAUNCH_REPLY_UNEXPECTED");
    }
  } finally {
    await fake.stop();
  }
});

test("bad argv or env is refused before anything is sent", () =>
  withHerdrLike(async (fake) => {
    const client = new HerdrClient({ socketPath: fake.socketPath });
    const cases: [Parameters<typeof launchPane>[1], string][] = [
      [{ argv: [] }, "LAUNCH_ARGV_EMPTY"],
      [{ argv: [""] }, "LAUNCH_ARGV_EMPTY"],
      [{ argv: ["x"], env: { "A=B": "1" } }, "LAUNCH_ENV_INVALID"],
      [{ argv: ["x"], env: { "": "1" } }, "LAUNCH_ENV_INVALID"],
      [{ argv: ["x"], env: { A: "a\0b" } }, "LAUNCH_ENV_INVALID"],
    ];
    for (const [opts, code] of cases) {
      try {
        await launchPane(client, opts);
        assert.unreachable(code);
      } catch (err) {
        assert.ok(err instanceof GrokSeatError);
        assert.is(err.code, code);
      }
    }
    assert.is(fake.accepted, 0);
  }));

test.run();
