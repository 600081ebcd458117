/**
 * flock(2) for the simulator. A single-executable app can only `require` builtins, so the
 * project's native addon is loaded with process.dlopen: from GROK_SIM_ADDON, else the newest
 * `*.node` under <repo>/build/Release (the repo path is baked in at build time). Its raw export
 * `flock(fd, "ex" | "sh" | "un", nonBlocking): boolean` returns false when a non-blocking lock is
 * contended.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { addonFunction } from "./addon.js";

declare const __GROK_SIM_REPO__: string | undefined;

type FlockFn = (fd: number, op: "ex" | "sh" | "un", nonBlocking: boolean) => boolean;

let cached: FlockFn | undefined;

function repoRoot(): string | undefined {
  return typeof __GROK_SIM_REPO__ === "string" ? __GROK_SIM_REPO__ : process.env.GROK_SIM_REPO;
}

function candidatePaths(): string[] {
  const explicit = process.env.GROK_SIM_ADDON;
  if (explicit !== undefined && explicit !== "") return [explicit];
  const root = repoRoot();
  if (root === undefined) return [];
  const dir = join(root, "build", "Release");
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".node"));
  } catch {
    return [];
  }
  return names.map((n) => join(dir, n)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
}

function load(): FlockFn {
  if (cached !== undefined) return cached;
  const tried = candidatePaths();
  const fn = addonFunction(tried, "flock");
  if (fn !== undefined) {
    const flock: FlockFn = (fd, op, nonBlocking) => {
      const result = fn(fd, op, nonBlocking);
      if (typeof result !== "boolean") throw new Error("addon flock returned a non-boolean");
      return result;
    };
    cached = flock;
    return flock;
  }
  throw new Error(
    `grok simulator: no native addon with a flock export (tried: ${tried.join(", ") || "nothing; set GROK_SIM_ADDON or run npm run build:native"})`,
  );
}

/** Exclusive lock; false when another open file description holds it and nonBlocking is set. */
export function lockExclusive(fd: number, nonBlocking: boolean): boolean {
  return load()(fd, "ex", nonBlocking);
}

export function unlock(fd: number): void {
  load()(fd, "un", false);
}

export function flockAvailable(): boolean {
  try {
    load();
    return true;
  } catch {
    return false;
  }
}
