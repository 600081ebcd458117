/**
 * The commands a verify-proof invocation needs, loaded on demand: `verify-proof process <pid>`
 * loads the process command alone (not Herdr's client, the leader's, the seat records), since
 * a CLI's start-up is most of its wall time (issue 19). Anything else (`--help`, an unknown
 * name, a usage error) loads the whole registry (commands/index.ts).
 */
import type { Command } from "../command.js";

// biome-ignore format: one command per line, as in commands/index.ts
const loaders: Readonly<Record<string, () => Promise<Command>>> = {
  process: async () => (await import("./process.js")).processCommand,
  socket: async () => (await import("./socket.js")).socketCommand,
  pane: async () => (await import("./pane.js")).paneCommand,
  record: async () => (await import("./record.js")).recordCommand,
};

/** Every command, in `--help` order. */
export async function allCommands(): Promise<readonly Command[]> {
  return (await import("./index.js")).commands;
}

/** The one command `name` names (argv[0]), or every command when it names none. */
export async function commandsFor(name: string | undefined): Promise<readonly Command[]> {
  const load = name === undefined || !Object.hasOwn(loaders, name) ? undefined : loaders[name];
  return load === undefined ? allCommands() : [await load()];
}
