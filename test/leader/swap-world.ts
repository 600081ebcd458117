/**
 * Two counting listeners, each its own process (test/reliability/fixtures/socket-listener.ts,
 * which never answers and counts the connections and bytes it received), on `<dir>/leader.sock`
 * and `<dir>/other.sock` in a private 0700 directory. `swap()` renames the other's socket over
 * `leader.sock`: the path the socket proof looked at now reaches another process, the shape of
 * the rename races of docs/design/reliability-plan.md §6 T4/T10, staged at one exact moment instead of raced.
 */
import { mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { LISTENER } from "../reliability/fixtures/socket-env.js";
import { LineChild } from "../reliability/fixtures/socket-world.js";

export interface SwapWorld {
  readonly dir: string;
  /** `<dir>/leader.sock`, served by `real` until `swap()`. */
  readonly path: string;
  readonly real: LineChild;
  readonly other: LineChild;
  /** Rename `<dir>/other.sock` over `leader.sock` (atomic: the path never dangles). */
  swap(): void;
  /** Connections accepted and bytes received by each listener. */
  counts(): Promise<{ real: Count; other: Count }>;
  close(): Promise<void>;
}

export interface Count {
  readonly connections: number;
  readonly bytes: number;
}

async function listen(child: LineChild, key: string, path: string): Promise<void> {
  const r = await child.request({ op: "listen", key, path });
  if (r.ok !== true) throw new Error(`listen ${path}: ${JSON.stringify(r)}`);
}

const Counts = v.object({
  counts: v.record(v.string(), v.object({ connections: v.number(), bytes: v.number() })),
});

async function countOf(child: LineChild, key: string): Promise<Count> {
  const c = v.parse(Counts, await child.request({ op: "counts" })).counts[key];
  if (c === undefined) throw new Error(`no counts for ${key}`);
  return c;
}

export async function startSwapWorld(): Promise<SwapWorld> {
  const dir = mkdtempSync(join(tmpdir(), "grok-seat-swap-"));
  const path = join(dir, "leader.sock");
  const otherPath = join(dir, "other.sock");
  const real = await LineChild.start(LISTENER, null);
  const other = await LineChild.start(LISTENER, null);
  await listen(real, "real", path);
  await listen(other, "other", otherPath);
  return {
    dir,
    path,
    real,
    other,
    swap: () => renameSync(otherPath, path),
    counts: async () => ({
      real: await countOf(real, "real"),
      other: await countOf(other, "other"),
    }),
    close: async () => {
      await Promise.all([real.stop(), other.stop()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
