/**
 * The seat record: every proof a hire established, versioned, persisted 0600 in the seat's
 * private runtime directory (atomic: write a fresh temp file, fsync, rename, fsync the directory).
 * A record can be re-verified against live facts (`verify-seat-record.ts`, `verify-proof record`) but
 * never adopts a leader (ADR 0224 (docs/design/adr-0224.md): "Saved disk records cannot adopt arbitrary leaders";
 * `registry.ts`).
 */
import { randomBytes } from "node:crypto";
import { closeSync, constants, fsyncSync, openSync, renameSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import * as v from "valibot";
import { GrokSeatError } from "../errors.js";
import { isJsonValue, type JsonValue } from "../json.js";
// From the files themselves, not the kernel and proof layers' indexes: the root entry loads this
// module at import, and those indexes reach the whole kernel (issue 19).
import { FileReadError, readRegularFile } from "../kernel/regular-file.js";
import { BoundProcessSchema, PaneProofRecordSchema } from "../proof/pane-record.js";
import { ProcessIdentitySchema } from "../proof/session-descriptor.js";
import { writeNewPrivateFile } from "./private-file.js";
import { SkillEntrySchema } from "./skills.js";

export const SEAT_RECORD_KIND = "grok-seat/seat-record";
export const SEAT_RECORD_VERSION = 1;
/** A record is a few tens of kilobytes; anything much larger is not one. */
const MAX_RECORD_BYTES = 4 * 1024 * 1024;

export { isJsonValue, MAX_JSON_DEPTH } from "../json.js";

const Json = v.custom<JsonValue>(isJsonValue, "not a JSON value");
const uint = v.pipe(v.number(), v.integer(), v.minValue(0));

export const CheckResultSchema = v.object({
  check: v.string(),
  ok: v.boolean(),
  expected: Json,
  received: Json,
  reason: v.nullable(v.string()),
});

export const SeatRecordSchema = v.object({
  kind: v.literal(SEAT_RECORD_KIND),
  version: v.literal(SEAT_RECORD_VERSION),
  createdAt: v.string(),
  /** The native Grok session UUID (`--session-id`). */
  sessionId: v.string(),
  /** The orchestrator's conversation this seat serves (resume must name the same one). */
  conversationId: v.nullable(v.string()),
  cwd: v.string(),
  runtimeDir: v.string(),
  /**
   * Where the seat's fence journal and admission lock live. A fresh seat keeps them in its own
   * runtime dir; a resumed seat keeps the original seat's, so earlier receipts (and uncertain
   * ones) stay reconcilable and earlier prompt ids stay refused as duplicates. Absent in records
   * written before this field existed: then it is `runtimeDir`.
   */
  journalDir: v.optional(v.string()),
  socketPath: v.string(),
  lockPath: v.string(),
  /**
   * The session's native transcript, Grok's own `updates.jsonl` (`readNativeTranscript` reads it
   * after release), or null when its directory could not be named. Absent in records written
   * before this field existed: then it is derived from `profile.grokHome`, `cwd` and `sessionId`.
   */
  nativeTranscript: v.optional(v.nullable(v.string())),
  /**
   * How the TUI was launched: its argv, the variables the seat itself set in the pane (GROK_HOME,
   * GROK_DISABLE_AUTOUPDATER=1: the leader inherits them) and the names of the caller's extra
   * variables (values not recorded). Absent in records written before it existed.
   */
  launch: v.optional(
    v.object({
      argv: v.array(v.string()),
      env: v.record(v.string(), v.string()),
      callerEnv: v.array(v.string()),
    }),
  ),
  /** The controller process that hired the seat. */
  controller: v.object({
    pid: uint,
    identity: v.nullable(ProcessIdentitySchema),
    epoch: uint,
  }),
  profile: v.object({
    kind: v.picklist(["grok-home", "temporary"]),
    grokHome: v.string(),
    loginFile: v.nullable(v.object({ source: v.string(), copiedTo: v.string(), bytes: uint })),
  }),
  skills: v.array(SkillEntrySchema),
  grok: v.object({ executable: v.string(), versionLine: v.string() }),
  versions: v.object({
    cli: v.string(),
    leader: v.nullable(v.string()),
    agent: v.nullable(v.string()),
    leaderProtocol: v.nullable(uint),
    controlV1: v.nullable(v.boolean()),
    acpProtocol: uint,
  }),
  /** The pane proof (TUI pid, identity, birth, executable, cwd, terminal, Herdr descriptor). */
  pane: PaneProofRecordSchema,
  leader: v.object({
    ...BoundProcessSchema.entries,
    ppid: uint,
    /** The leader's self-report (`get_leader_info`) as received. */
    info: Json,
  }),
  socket: v.object({
    path: v.string(),
    device: v.string(),
    inode: v.string(),
    uid: uint,
    mode: uint,
    dir: v.object({ path: v.string(), uid: uint, mode: uint }),
    listeners: v.array(uint),
  }),
  activeSession: v.object({
    session_id: v.string(),
    pid: uint,
    cwd: v.string(),
    opened_at: v.string(),
  }),
  /** The Herdr agent verdict that was accepted. */
  agent: Json,
  model: v.nullable(v.object({ modelId: v.string(), effort: v.nullable(v.string()) })),
  /**
   * The persona applied with `--rules` (its SHA-256 and UTF-8 length, never its text) and
   * whether it carries the skills note. Absent in records written before this field existed.
   */
  persona: v.optional(
    v.nullable(v.object({ sha256: v.string(), bytes: uint, skillsNote: v.boolean() })),
  ),
  /**
   * For a temporary profile with selected skills: each manifest entry, the skill files it
   * yields and the names Grok listed for them (step `skills`). Null: not configured (the owner's
   * profile: readable paths only). Absent in older records.
   */
  skillsDiscovered: v.optional(
    v.nullable(
      v.array(
        v.object({
          realPath: v.string(),
          files: v.array(v.string()),
          names: v.array(v.string()),
        }),
      ),
    ),
  ),
  /**
   * The operator's bank as the seat served it: its name, the proxy's loopback URL, where Grok was
   * told of it (`profile`: the temporary profile's config.toml; `session`: the live session only,
   * lost when the TUI next loads it), the tools Grok listed and the SHA-256 of the projected tool
   * list. Never a token or an upstream header. Absent in older records.
   */
  bank: v.optional(
    v.nullable(
      v.object({
        name: v.string(),
        proxy: v.string(),
        scope: v.picklist(["profile", "session"]),
        tools: v.array(v.string()),
        toolsDigest: v.string(),
      }),
    ),
  ),
  /** The config.toml written into a temporary profile (path and digest), or null. */
  profileConfig: v.optional(
    v.nullable(v.object({ path: v.string(), sha256: v.string(), bytes: uint })),
  ),
  /** Every check that passed, by hire step. */
  proofs: v.record(v.string(), v.array(CheckResultSchema)),
  /** Filled in by release. */
  release: v.nullable(
    v.object({
      at: v.string(),
      /** The exit-watch verdict (kernel evidence on the TUI's bound identity), or null. */
      tuiExit: Json,
      tuiExitObserved: v.boolean(),
      leader: v.object({
        action: v.picklist(["stopped", "left_running", "already_gone", "stop_timed_out"]),
        reasons: v.array(v.string()),
      }),
    }),
  ),
});
export type SeatRecord = v.InferOutput<typeof SeatRecordSchema>;

/**
 * Write `record` as `<dir>/<name>`: validated first (RECORD_INVALID, nothing written), then 0600, O_EXCL temp
 * file, fsync, rename, fsync the directory.
 */
export function writeSeatRecord(path: string, record: SeatRecord): void {
  // What is written must be what `readSeatRecord` accepts, before any file is created.
  let text: string;
  try {
    text = `${JSON.stringify(record, null, 2)}\n`;
  } catch (cause) {
    throw new GrokSeatError("RECORD_INVALID", "the seat record is not serialisable as JSON", {
      details: { path },
      cause,
    });
  }
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length > MAX_RECORD_BYTES) {
    throw new GrokSeatError(
      "RECORD_INVALID",
      `a seat record of ${bytes.length} bytes is too large`,
      {
        details: { path, bytes: bytes.length, max: MAX_RECORD_BYTES },
      },
    );
  }
  // Both the value (a NaN is not JSON) and its text (what a reader will see) must be a record.
  parseSeatRecord(record, `the record for ${path}`);
  parseSeatRecord(JSON.parse(text), `the record for ${path}`);
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  writeNewPrivateFile(tmp, bytes);
  renameSync(tmp, path);
  const dfd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(dfd);
  } finally {
    closeSync(dfd);
  }
}

export interface LoadedRecord {
  readonly record: SeatRecord;
  /** lstat facts of the file as opened (for the `record.file_private` check). */
  readonly file: { readonly uid: number; readonly mode: number };
}

/**
 * Read and validate a seat record (no symlink followed, bounded: `readRegularFile`). Throws
 * GrokSeatError RECORD_UNREADABLE (cannot open/read/parse) or RECORD_INVALID (not a seat record).
 */
export function readSeatRecord(path: string): LoadedRecord {
  let text: string;
  let file: { uid: number; mode: number };
  try {
    const read = readRegularFile(path, MAX_RECORD_BYTES);
    file = { uid: read.uid, mode: read.mode };
    // Invalid UTF-8 is refused, never replaced by U+FFFD (a path must stay the path it was).
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(read.bytes);
  } catch (cause) {
    const why = cause instanceof FileReadError ? cause.message : `${path} is not UTF-8`;
    throw new GrokSeatError("RECORD_UNREADABLE", why, { details: { path }, cause });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new GrokSeatError("RECORD_UNREADABLE", `${path} is not JSON`, {
      details: { path },
      cause,
    });
  }
  return { record: parseSeatRecord(raw, path), file };
}

/** Validate a seat record value: RECORD_INVALID naming the first problems when it is not one. */
export function parseSeatRecord(raw: unknown, where: string): SeatRecord {
  const parsed = v.safeParse(SeatRecordSchema, raw);
  if (!parsed.success) {
    throw new GrokSeatError(
      "RECORD_INVALID",
      `${where} is not a seat record: ${v.summarize(parsed.issues)}`,
      { details: { path: where } },
    );
  }
  return parsed.output;
}
