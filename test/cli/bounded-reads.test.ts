// @platform linux: mkfifo and /dev/zero as the hostile files
/**
 * Every file the CLI reads is read bounded (issue 16 item 6): a FIFO must not hang it, /dev/zero
 * must not grow it, a directory or a symlink is refused, a file over the cap is refused. Each is a
 * typed RECORD_UNREADABLE, exit 2, within seconds; the real CLI is spawned (with a kill timer, so
 * an unbounded read shows as a timeout, not a hung suite).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readRegularFile } from "../../lib/kernel/index.js";

const ROOT = join(import.meta.dirname, "..", "..");
const CLI = join(ROOT, "lib", "cli", "verify-proof.ts");
const DEADLINE_MS = 20_000;

let dir: string;
test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), "gs-bounded-"));
});
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  readonly code: number | null;
  readonly killed: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI with --json, killed after DEADLINE_MS. */
function cli(args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", CLI, ...args, "--json"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, DEADLINE_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, killed, stdout, stderr });
    });
  });
}

async function mkfifo(name: string): Promise<string> {
  const path = join(dir, name);
  await new Promise<void>((resolve, reject) => {
    const p = spawn("mkfifo", [path]);
    p.on("close", (c) => (c === 0 ? resolve() : reject(new Error(`mkfifo ${c}`))));
  });
  return path;
}

async function hostileFiles(): Promise<[string, string][]> {
  const big = join(dir, "big.json");
  writeFileSync(big, `{"pad":"${"x".repeat(5 * 1024 * 1024)}"}`);
  const link = join(dir, "link.json");
  symlinkSync(big, link);
  return [
    ["a FIFO nobody writes to", await mkfifo("record.fifo")],
    ["/dev/zero", "/dev/zero"],
    ["a directory", dir],
    ["a symlink", link],
    ["a 5 MiB file", big],
  ];
}

function errorCode(r: Run): string | null {
  try {
    const doc: unknown = JSON.parse(r.stdout);
    const error = typeof doc === "object" && doc !== null ? Reflect.get(doc, "error") : null;
    const code = typeof error === "object" && error !== null ? Reflect.get(error, "code") : null;
    return typeof code === "string" ? code : null;
  } catch {
    return null;
  }
}

test("verify-proof pane --record: a FIFO, /dev/zero, a directory, a symlink, a big file", async () => {
  for (const [what, path] of await hostileFiles()) {
    const r = await cli([
      "pane",
      "w1:p1",
      "--herdr-socket",
      join(dir, "none.sock"),
      "--record",
      path,
    ]);
    assert.not.ok(r.killed, `${what}: the CLI returned before ${DEADLINE_MS} ms`);
    assert.is(r.code, 2, `${what}: ${r.stderr}`);
    assert.is(errorCode(r), "RECORD_UNREADABLE", `${what}: ${r.stdout}`);
  }
});

test("verify-proof record: a FIFO, /dev/zero, a directory, a symlink, a big file", async () => {
  for (const [what, path] of await hostileFiles()) {
    const r = await cli(["record", path]);
    assert.not.ok(r.killed, `${what}: the CLI returned before ${DEADLINE_MS} ms`);
    assert.is(r.code, 2, `${what}: ${r.stderr}`);
    assert.is(errorCode(r), "RECORD_UNREADABLE", `${what}: ${r.stdout}`);
  }
});

test("readRegularFile: typed codes, and no more than the cap + 1 bytes read", async () => {
  const codes: string[] = [];
  for (const [, path] of await hostileFiles()) {
    try {
      readRegularFile(path, 1024 * 1024);
      codes.push("READ");
    } catch (err) {
      codes.push(err instanceof Error ? String(Reflect.get(err, "code")) : "?");
    }
  }
  assert.equal(codes, [
    "FILE_NOT_REGULAR",
    "FILE_NOT_REGULAR",
    "FILE_NOT_REGULAR",
    "FILE_UNREADABLE",
    "FILE_TOO_LARGE",
  ]);
  const small = join(dir, "small.json");
  writeFileSync(small, "{}");
  assert.is(readRegularFile(small, 2).bytes.toString(), "{}");
  const three = join(dir, "three");
  writeFileSync(three, "abc");
  try {
    readRegularFile(three, 2);
    assert.unreachable("3 bytes over a 2-byte cap");
  } catch (err) {
    assert.is(err instanceof Error && Reflect.get(err, "code"), "FILE_TOO_LARGE");
  }
});

test.run();
