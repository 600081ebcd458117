/**
 * Worker admission (ADR 0224 (docs/design/adr-0224.md): "Worker bridge admission recognizes only controller-created
 * leaders with that original pane proof. Saved disk records cannot adopt arbitrary leaders").
 *
 * The registry holds, in memory, the seats *this process* hired and has not released, keyed by
 * the leader's proven identity and the original pane record. A worker is admitted to a seat only
 * when its claim names exactly such a seat: same leader identity, same pane proof (deep equal),
 * and the seat is still live. Anything else — a record read from disk by another process, a
 * record of a released seat, a record whose pane was re-bound — is ADOPTION_REFUSED, and nothing
 * is connected to: no socket is opened, no frame is sent, no signal is delivered.
 */
import { jsonEqual } from "../check.js";
import type { ProcessIdentity } from "../kernel/index.js";
import type { PaneProofRecord } from "../proof/pane.js";
import { SeatRefusal } from "./refusal.js";
import type { SeatRecord } from "./seat-record.js";

/** What a worker presents: the leader it wants and the pane proof it was given. */
export interface WorkerClaim {
  readonly leader: { readonly pid: number; readonly identity: ProcessIdentity };
  readonly pane: PaneProofRecord;
}

/** The registry's view of a hired seat (the `Seat` class implements it). */
export interface RegisteredSeat {
  readonly sessionId: string;
  readonly record: SeatRecord;
  /** False once released, or once its leader or TUI is known gone. */
  readonly live: boolean;
}

function key(identity: ProcessIdentity): string {
  return `${identity.kind}:${identity.value}`;
}

export class SeatRegistry<S extends RegisteredSeat = RegisteredSeat> {
  readonly #seats = new Map<string, S>();

  register(seat: S): void {
    this.#seats.set(key(seat.record.leader.identity), seat);
  }

  unregister(seat: S): void {
    const k = key(seat.record.leader.identity);
    if (this.#seats.get(k) === seat) this.#seats.delete(k);
  }

  get size(): number {
    return this.#seats.size;
  }

  /**
   * Admit a worker to a seat this process hired. Refuses ADOPTION_REFUSED (step "adopt") with the
   * check that failed: `adopt.hired_here`, `adopt.pane_proof`, `adopt.leader_pid` or `adopt.live`.
   */
  admit(claim: WorkerClaim | SeatRecord): S {
    const seat = this.#seats.get(key(claim.leader.identity));
    const refuse = (check: string, reason: string): SeatRefusal =>
      new SeatRefusal({
        step: "adopt",
        code: "ADOPTION_REFUSED",
        check,
        reason,
        details: { leaderPid: claim.leader.pid, paneId: claim.pane.pane.paneId },
      });
    if (seat === undefined) {
      throw refuse(
        "adopt.hired_here",
        "no live seat hired by this controller has that leader; a saved record never adopts a leader",
      );
    }
    if (seat.record.leader.pid !== claim.leader.pid) {
      throw refuse("adopt.leader_pid", "the claim names another pid for that leader identity");
    }
    if (!jsonEqual(seat.record.pane, claim.pane)) {
      throw refuse(
        "adopt.pane_proof",
        "the claim's pane proof is not the seat's original pane proof",
      );
    }
    if (!seat.live) throw refuse("adopt.live", "the seat is released or its leader or TUI is gone");
    return seat;
  }
}
