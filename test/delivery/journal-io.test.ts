import { mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  nodeJournalIO,
  type PathFacts,
  sameFile,
  seatDirProblem,
  seatFileProblem,
} from "../../lib/delivery/journal-io.js";
import { failureOf } from "../../lib/errors.js";
import { cleanupSeats, tempSeat } from "./fixtures.js";

test.after.each(cleanupSeats);

const dir: PathFacts = {
  kind: "directory",
  dev: "1",
  ino: "2",
  uid: 1000,
  mode: 0o700,
  size: 0,
  nlink: 2,
};
const file: PathFacts = {
  kind: "file",
  dev: "1",
  ino: "3",
  uid: 1000,
  mode: 0o600,
  size: 0,
  nlink: 1,
};

test("privacy rules: one named reason per problem (tmux make_label, sshd StrictModes)", () => {
  assert.is(seatDirProblem(dir, 1000), null);
  assert.is(seatDirProblem(null, 1000), "missing");
  assert.is(seatDirProblem({ ...dir, kind: "symlink" }, 1000), "symlink");
  assert.is(seatDirProblem({ ...dir, kind: "file" }, 1000), "not-directory");
  assert.is(seatDirProblem(dir, 0), "owner");
  for (const mode of [0o750, 0o710, 0o701, 0o770, 0o755])
    assert.is(seatDirProblem({ ...dir, mode }, 1000), "mode");
  assert.is(seatFileProblem(file, 1000), null);
  assert.is(seatFileProblem({ ...file, kind: "symlink" }, 1000), "symlink");
  assert.is(seatFileProblem({ ...file, kind: "other" }, 1000), "not-file");
  assert.is(seatFileProblem(file, 0), "owner");
  assert.is(seatFileProblem({ ...file, mode: 0o640 }, 1000), "mode");
  assert.is(seatFileProblem({ ...file, nlink: 2 }, 1000), "links");
  assert.ok(sameFile(file, { ...file, size: 9 }));
  assert.not.ok(sameFile(file, { ...file, ino: "4" }));
});

test("nodeJournalIO: lstat never follows, create is exclusive and 0600, no symlink is opened", () => {
  const seat = tempSeat();
  const p = join(seat, "f");
  const fd = nodeJournalIO.openFile(p, "create");
  assert.is(statSync(p).mode & 0o777, 0o600);
  nodeJournalIO.append(fd, Buffer.from("abc\n"));
  nodeJournalIO.fsync(fd);
  assert.is(Buffer.from(nodeJournalIO.readAll(fd)).toString(), "abc\n");
  nodeJournalIO.truncate(fd, 1);
  assert.is(nodeJournalIO.fstat(fd).size, 1);
  nodeJournalIO.close(fd);
  const err = (f: () => unknown): string | null => {
    try {
      f();
    } catch (e) {
      return failureOf(e)?.code ?? null;
    }
    return null;
  };
  assert.is(
    err(() => nodeJournalIO.openFile(p, "create")),
    "EEXIST",
  );
  symlinkSync(p, join(seat, "link"));
  assert.is(nodeJournalIO.lstat(join(seat, "link"))?.kind, "symlink");
  assert.is(
    err(() => nodeJournalIO.openFile(join(seat, "link"), "existing")),
    "ELOOP",
  );
  mkdirSync(join(seat, "d"));
  symlinkSync(join(seat, "d"), join(seat, "dlink"));
  // O_DIRECTORY | O_NOFOLLOW on a symlink: Linux reports ENOTDIR (open(2)); refused either way.
  const dirErr = err(() => nodeJournalIO.openDirectory(join(seat, "dlink"))) ?? "";
  assert.ok(["ELOOP", "ENOTDIR"].includes(dirErr), dirErr);
  writeFileSync(join(seat, "plain"), "");
  assert.is(
    err(() => nodeJournalIO.openDirectory(join(seat, "plain"))),
    "ENOTDIR",
  );
  assert.is(nodeJournalIO.lstat(join(seat, "absent")), null);
  assert.is(failureOf("not an error"), null);
});

test.run();
