/** The verify-proof command registry: one line per command, in the order `--help` lists them. */
import type { Command } from "../command.js";
import { paneCommand } from "./pane.js";
import { processCommand } from "./process.js";
import { recordCommand } from "./record.js";
import { socketCommand } from "./socket.js";

// biome-ignore format: one command per line, so adding a command is a one-line change
export const commands: readonly Command[] = [
  processCommand,
  socketCommand,
  paneCommand,
  recordCommand,
];
