/**
 * lstat facts of a path and of every directory above it, up to `/`: what OpenSSH's `safe_path`
 * (auth.c, StrictModes) walks before it trusts a file. Nothing is followed: a symlink anywhere on
 * the path is reported as one. A component that cannot be looked at is reported with its errno.
 */
import { type BigIntStats, lstatSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { requirePath } from "./arguments.js";
import type { FileType } from "./types.js";

export type PathEntry =
  | {
      readonly path: string;
      readonly type: FileType;
      readonly uid: number;
      /** Permission bits with setuid/setgid/sticky (st_mode & 07777). */
      readonly mode: number;
      readonly device: string;
      readonly inode: string;
    }
  | { readonly path: string; readonly error: string };

function typeOf(st: BigIntStats): FileType {
  if (st.isSymbolicLink()) return "symlink";
  if (st.isDirectory()) return "directory";
  if (st.isSocket()) return "socket";
  if (st.isFIFO()) return "fifo";
  if (st.isCharacterDevice()) return "char";
  if (st.isBlockDevice()) return "block";
  return "file";
}

/** One entry per component of the absolute `path`, the path itself first, `/` last. */
export function pathAncestry(path: string): PathEntry[] {
  requirePath(path, "pathAncestry");
  const out: PathEntry[] = [];
  let p = isAbsolute(path) ? resolve(path) : resolve(process.cwd(), path);
  for (;;) {
    try {
      const st = lstatSync(p, { bigint: true });
      out.push({
        path: p,
        type: typeOf(st),
        uid: Number(st.uid),
        mode: Number(st.mode & 0o7777n),
        device: String(st.dev),
        inode: String(st.ino),
      });
    } catch (err) {
      const code = err instanceof Error ? Reflect.get(err, "code") : undefined;
      out.push({ path: p, error: typeof code === "string" ? code : "error" });
    }
    const up = dirname(p);
    if (up === p) return out;
    p = up;
  }
}
