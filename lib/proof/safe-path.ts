/**
 * Whether a path can be trusted not to change under us, from the lstat facts of it and of every
 * directory above it (lib/kernel/path-ancestry.ts), as OpenSSH's `safe_path` decides for
 * StrictModes (auth.c): each component must be a real directory (no symlink), owned by us or by
 * root, and not writable by group or others — except a directory with the sticky bit (like /tmp),
 * where others may create entries but not rename or remove ours. Anyone who could write to a
 * component without that protection could rename what we made away and put theirs in its place.
 * The directory a path ends in may be held to more (`checkOwnDir`): no group/other write at
 * all, sticky or not, and ours alone. Pure.
 */
import { type CheckResult, fail, pass } from "../check.js";
import type { PathEntry } from "../kernel/index.js";
import { octal } from "./socket.js";

const ROOT = 0;

/** Why one component is not safe, or null. */
function problem(e: PathEntry, uid: number): string | null {
  if ("error" in e) return `${e.path} cannot be looked at (${e.error})`;
  if (e.type === "symlink") return `${e.path} is a symlink`;
  if (e.type !== "directory") return `${e.path} is not a directory`;
  if (e.uid !== uid && e.uid !== ROOT)
    return `${e.path} is owned by uid ${e.uid}, neither us (${uid}) nor root`;
  if ((e.mode & 0o022) !== 0 && (e.mode & 0o1000) === 0)
    return `${e.path} is writable by group or others without the sticky bit (mode ${octal(e.mode)})`;
  return null;
}

function received(e: PathEntry): CheckResult["received"] {
  return "error" in e
    ? { path: e.path, error: e.error }
    : { path: e.path, type: e.type, uid: e.uid, mode: octal(e.mode) };
}

const EXPECTED = "every directory up to / ours or root's, not group/other-writable unless sticky";

/** `entries`: the directory to trust first, `/` last (as `pathAncestry` gives them). */
export function checkSafePath(
  check: string,
  entries: readonly PathEntry[],
  uid: number,
): CheckResult {
  for (const e of entries) {
    const why = problem(e, uid);
    if (why !== null) return fail(check, EXPECTED, received(e), why);
  }
  const first = entries[0];
  return pass(check, EXPECTED, first === undefined ? null : first.path);
}

/**
 * The directory itself, private enough to hold what we trust: a real directory, ours, writable by
 * no one else (the sticky bit does not help here: others could still create files in it).
 */
export function checkOwnDir(check: string, entry: PathEntry | undefined, uid: number): CheckResult {
  const expected = "a directory of ours, not writable by group or others";
  if (entry === undefined) return fail(check, expected, null, "no directory");
  if ("error" in entry)
    return fail(
      check,
      expected,
      received(entry),
      `${entry.path} cannot be looked at (${entry.error})`,
    );
  if (entry.type !== "directory")
    return fail(check, expected, received(entry), `${entry.path} is not a directory`);
  if (entry.uid !== uid)
    return fail(
      check,
      expected,
      received(entry),
      `${entry.path} is owned by uid ${entry.uid}, not us (${uid})`,
    );
  if ((entry.mode & 0o022) !== 0)
    return fail(
      check,
      expected,
      received(entry),
      `${entry.path} is writable by group or others (mode ${octal(entry.mode)})`,
    );
  return pass(check, expected, received(entry));
}
