/**
 * writeNewPrivateFile: a new 0600 file with every byte, never through a symlink nor over an
 * existing name (left untouched), and removed again when it could not be finished (a write
 * refused with EFBIG under `prlimit --fsize`, the kernel's own file-size limit).
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { writeNewPrivateFile } from "../../lib/seat/private-file.js";
import { cleanup, haveCommand, tempDir } from "../helpers/kernel-children.js";

test.after.each(cleanup);

function code(fn: () => void): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof Error ? (err as NodeJS.ErrnoException).code : String(err);
  }
  return undefined;
}

test("a new file: 0600, every byte", () => {
  const path = join(tempDir("private-file"), "f");
  const bytes = Buffer.from("x".repeat(200_000));
  writeNewPrivateFile(path, bytes);
  assert.is(lstatSync(path).mode & 0o777, 0o600);
  assert.ok(readFileSync(path).equals(bytes));
});

test("an existing name or a symlink is refused with EEXIST and left untouched", () => {
  const dir = tempDir("private-file");
  const existing = join(dir, "existing");
  writeFileSync(existing, "theirs");
  assert.is(
    code(() => writeNewPrivateFile(existing, Buffer.from("ours"))),
    "EEXIST",
  );
  assert.is(readFileSync(existing, "utf8"), "theirs");
  const target = join(dir, "target");
  const link = join(dir, "link");
  symlinkSync(target, link);
  assert.is(
    code(() => writeNewPrivateFile(link, Buffer.from("ours"))),
    "EEXIST",
  );
  assert.is(existsSync(target), false, "nothing created through the symlink");
  assert.ok(lstatSync(link).isSymbolicLink());
});

test("a file it could not finish is removed (EFBIG under prlimit --fsize)", () => {
  if (!haveCommand("prlimit")) {
    console.log("SKIP: prlimit (util-linux) is not installed");
    return;
  }
  const path = join(tempDir("private-file"), "partial");
  const module = join(import.meta.dirname, "..", "..", "lib", "seat", "private-file.ts");
  const script = `
    const { writeNewPrivateFile } = await import(${JSON.stringify(module)});
    try { writeNewPrivateFile(${JSON.stringify(path)}, Buffer.alloc(100_000, 1)); console.log("written"); }
    catch (e) { console.log(e.code); }
  `;
  const r = spawnSync(
    "prlimit",
    ["--fsize=4096", process.execPath, "--import", "tsx", "--input-type=module", "-e", script],
    { encoding: "utf8", cwd: join(import.meta.dirname, "..", "..") },
  );
  assert.is(r.stdout.trim(), "EFBIG", r.stderr);
  assert.is(existsSync(path), false, "the partial file was removed");
});

test.run();
