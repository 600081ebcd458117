/**
 * `verify-proof socket <path> --leader` proves the peer of its one connection before it writes
 * `register` (issue 16 item 7, lib/leader/connect-proven.ts): the path is renamed to another
 * process's socket at the exact moment between the socket proof and the connect (the CLI's own
 * "connecting" progress line), and that process must receive no byte. Each listener counts what
 * it received (test/leader/swap-world.ts).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import { main } from "../../lib/cli/main.js";
import { waitFor } from "../helpers/kernel-children.js";
import { startSwapWorld } from "../leader/swap-world.js";

const Report = v.object({
  ok: v.boolean(),
  checks: v.array(v.object({ check: v.string(), ok: v.boolean(), received: v.unknown() })),
  leader: v.object({ registered: v.unknown(), leaderInfo: v.unknown() }),
});

test("a socket swapped between the proof and the connect gets no byte: refused as connect.peer_listener", async () => {
  const world = await startSwapWorld();
  try {
    let out = "";
    let swapped = false;
    const code = await main(["socket", world.path, "--leader", "--json"], {
      stdout: { write: (s: string) => (out += s) },
      stderr: {
        write: (s: string) => {
          // After the socket proof, before the connect: the path now names the other socket.
          if (s.includes("connecting to the leader")) {
            world.swap();
            swapped = true;
          }
          return true;
        },
      },
      env: {},
    });
    assert.ok(swapped, "the CLI announced its connect");
    await waitFor("the connect to reach the other listener", async () => {
      return (await world.counts()).other.connections === 1;
    });
    const counts = await world.counts();
    assert.equal(counts.other, { connections: 1, bytes: 0 }, "no byte reached the other socket");
    assert.equal(counts.real, { connections: 0, bytes: 0 });
    assert.is(code, 1);
    const report = v.parse(Report, JSON.parse(out));
    const failing = report.checks.filter((c) => !c.ok).map((c) => c.check);
    assert.is(failing[0], "connect.peer_listener", failing.join());
    assert.is(failing[failing.length - 1], "leader.connect");
    if (process.platform === "linux") assert.ok(failing.includes("connect.peer_socket_file"));
    assert.is(
      report.checks.find((c) => c.check === "connect.peer_listener")?.received,
      world.other.pid,
    );
    assert.ok(
      report.checks.filter((c) => c.check.startsWith("socket.")).every((c) => c.ok),
      "the socket proof itself passed",
    );
    assert.is(report.leader.registered, null, "nothing registered");
  } finally {
    await world.close();
  }
});

test.run();
