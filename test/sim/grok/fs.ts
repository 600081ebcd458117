/**
 * The filesystem questions several parts of the simulated program ask the same way: is this a
 * directory or a file (a missing or unreadable path is neither), a path's canonical form, and the
 * git root above a cwd (git2 `Repository::discover`, reduced to the nearest ancestor holding a
 * `.git` directory or gitfile).
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";

export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** realpath, or the path itself where it cannot be resolved. */
export function canonical(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** The nearest ancestor of `cwd` (itself included) holding `.git`. */
export function gitRoot(cwd: string): string | undefined {
  let dir = cwd;
  for (;;) {
    if (existsSync(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
