/**
 * The evidence directory of a verification run: one JSON file per step, private (0700 directory,
 * 0600 files). Results — what the system under test did, passing or not — go to `results/`;
 * instrument failures — our own tooling failing to take a measurement (a crash, an unparsable
 * CLI answer, a simulator that did not start) — go to `instrument/`, so a broken instrument is
 * never read as a verdict about Grok or Herdr (ADR 0224 (docs/design/adr-0224.md): "The evidence directory records the
 * instrument failures and live results separately").
 */
import {
  closeSync,
  constants,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { JsonValue } from "../../lib/json.js";

export interface StepEntry {
  readonly n: number;
  readonly step: string;
  readonly kind: "result" | "instrument";
  readonly ok: boolean;
  readonly file: string;
}

export class Evidence {
  readonly dir: string;
  readonly entries: StepEntry[] = [];
  #n = 0;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory() || (st.mode & 0o077) !== 0) {
      throw new Error(`${dir} must be a private directory (0700) of ours`);
    }
    if (readdirSync(dir).length > 0) throw new Error(`${dir} is not empty`);
    mkdirSync(join(dir, "results"), { mode: 0o700 });
    mkdirSync(join(dir, "instrument"), { mode: 0o700 });
    this.dir = dir;
  }

  #write(sub: string, name: string, value: JsonValue): string {
    const path = join(this.dir, sub, name);
    const fd = openSync(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      const bytes = Buffer.from(`${JSON.stringify(value, null, 2)}\n`);
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return path;
  }

  /** A measurement of the system under test (passing or failing). */
  result(step: string, ok: boolean, data: JsonValue): void {
    this.#n += 1;
    const name = `${String(this.#n).padStart(2, "0")}-${step}.json`;
    const file = this.#write("results", name, { step, ok, at: new Date().toISOString(), data });
    this.entries.push({ n: this.#n, step, kind: "result", ok, file });
  }

  /** Our tooling failed to measure: kept apart from the results. */
  instrument(step: string, error: unknown): void {
    this.#n += 1;
    const name = `${String(this.#n).padStart(2, "0")}-${step}.json`;
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    const file = this.#write("instrument", name, {
      step,
      at: new Date().toISOString(),
      error: message,
    });
    this.entries.push({ n: this.#n, step, kind: "instrument", ok: false, file });
  }

  summary(extra: { [key: string]: JsonValue }): { ok: boolean; path: string } {
    const results = this.entries.filter((e) => e.kind === "result");
    const instrument = this.entries.filter((e) => e.kind === "instrument");
    const ok = instrument.length === 0 && results.every((e) => e.ok);
    const path = this.#write("", "summary.json", {
      ok,
      results: results.map((e) => ({ step: e.step, ok: e.ok, file: e.file })),
      instrumentFailures: instrument.map((e) => ({ step: e.step, file: e.file })),
      ...extra,
    });
    return { ok, path };
  }
}
