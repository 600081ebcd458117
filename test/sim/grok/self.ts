/**
 * How this program re-executes itself: the real grok spawns `current_exe()` (leader/mod.rs
 * resolve_exe_for_spawn). As a single-executable app that is simply process.execPath; when run
 * from source (`node --import tsx main.ts`, development only) the script path is added.
 */
import { isSea } from "node:sea";

export function selfCommand(): { file: string; prefix: string[] } {
  if (isSea()) return { file: process.execPath, prefix: [] };
  const script = process.argv[1];
  return {
    file: process.execPath,
    prefix: [...process.execArgv, ...(script === undefined ? [] : [script])],
  };
}
