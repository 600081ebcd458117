// Start and stop one simulator: the private tmux server, the app state and the socket.
import { mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { HerdrSocketServer } from "./server.js";
import { HerdrSim, type SimOptions } from "./sim.js";

/** The simulator's options but the two this file derives: the CLI shim and HOME. */
export type RunOptions = Omit<SimOptions, "binPath" | "home">;

export type RunningSim = {
  readonly sim: HerdrSim;
  readonly stop: () => Promise<void>;
};

export async function runHerdrSim(opts: RunOptions): Promise<RunningSim> {
  mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  const binDir = join(opts.dir, "bin");
  mkdirSync(binDir, { recursive: true });
  const binPath = join(binDir, "herdr");
  // HERDR_BIN_PATH names the server executable; the simulator has no CLI, so the shim says so.
  writeFileSync(
    binPath,
    '#!/bin/sh\necho "herdr-sim: the herdr CLI is not simulated; talk to $HERDR_SOCKET_PATH" >&2\nexit 2\n',
    { mode: 0o755 },
  );
  const sim = new HerdrSim({ ...opts, binPath, home: opts.baseEnv.HOME ?? homedir() });
  await sim.start();
  const server = new HerdrSocketServer(sim, opts.socketPath);
  try {
    await server.listen();
  } catch (err) {
    await sim.stop();
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    sim,
    stop: () => {
      stopping ??= (async () => {
        await server.close();
        await sim.stop();
      })();
      return stopping;
    },
  };
}
