#!/usr/bin/env node
/** The `verify-proof` bin: prove kernel facts about a process or a socket and exit 0/1/2. */
import { main } from "./main.js";

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
