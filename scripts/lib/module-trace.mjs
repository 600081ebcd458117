// Module-load trace: `node --import ./scripts/lib/module-trace.mjs …` with
// GROK_SEAT_MODULE_TRACE=<file> records every module URL the process resolves (see
// module-trace-hooks.mjs). Imports already resolved before this runs are not seen, so pass it
// first among the --import flags that matter (tsx after it still sees its own files resolved).
import { register } from "node:module";

register(new URL("./module-trace-hooks.mjs", import.meta.url));
