/**
 * A new private file, durably: created exclusively (O_EXCL, never through a symlink), mode 0600,
 * every byte written, fsynced, closed. A file it could not finish is removed again, so a caller
 * never leaves a partial copy behind; a name that already exists is refused (EEXIST) untouched.
 */
import { closeSync, constants, fsyncSync, openSync, unlinkSync, writeSync } from "node:fs";

export function writeNewPrivateFile(path: string, bytes: Uint8Array): void {
  const fd = openSync(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(path);
    throw err;
  }
  closeSync(fd);
}
