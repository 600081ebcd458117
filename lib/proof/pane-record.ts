/**
 * The pane proof's record (lib/proof/pane.ts binds and re-checks it): its schema alone, so the seat
 * record's schema (lib/seat/seat-record.ts), which the root entry loads at import, does not load
 * the proof's checks with it (issue 19: the root entry loads only what it uses).
 */
import * as v from "valibot";
import { ProcessIdentitySchema, SessionDescriptorSchema } from "./session-descriptor.js";

const uint = v.pipe(v.number(), v.integer(), v.minValue(0));

export const PANE_PROOF_VERSION = 1;

/** A process as a proof binds it: kernel identity, µs birth, canonical executable, cwd, uid. */
export const BoundProcessSchema = v.object({
  pid: uint,
  identity: ProcessIdentitySchema,
  startTimeUs: v.number(),
  startTimePrecisionUs: v.number(),
  executable: v.nullable(v.string()),
  cwd: v.nullable(v.string()),
  uid: uint,
});

export const PaneProofRecordSchema = v.object({
  version: v.literal(PANE_PROOF_VERSION),
  boundAt: v.string(),
  pane: v.object({
    paneId: v.string(),
    terminalId: v.string(),
    workspaceId: v.string(),
    tabId: v.string(),
  }),
  /**
   * argv and cwd as `layout.apply` echoed them; null when the pane was not launched by us. A
   * record of what was asked, never re-checked: the owner's `/minimal` or `/fullscreen` re-execs
   * the TUI in place with a rebuilt argv (same pid, identity, birth and executable), which is not
   * another process (docs/design/decisions.md §12.5).
   */
  launch: v.nullable(v.object({ argv: v.array(v.string()), cwd: v.nullable(v.string()) })),
  process: v.object({
    ...BoundProcessSchema.entries,
    /** Controlling terminal from the kernel, e.g. /dev/pts/7. */
    tty: v.string(),
  }),
  herdr: SessionDescriptorSchema,
  /** Our native session (an id, a path for pi/omp), compared with `agent_session.value` whenever present. */
  nativeSessionId: v.nullable(v.string()),
  /** The agent label control requires; null for a pane proof without an agent claim. */
  expectedAgent: v.nullable(v.string()),
  /**
   * The `agent_session.kind` the expected agent's session must have. Absent in records written
   * before it existed: then Herdr's rule for `expectedAgent` (`harnessBinding`).
   */
  expectedSessionKind: v.exactOptional(v.nullable(v.picklist(["id", "path"]))),
});
export type PaneProofRecord = v.InferOutput<typeof PaneProofRecordSchema>;
