// events.subscribe and events.wait (src/api/server.rs stream_subscriptions, src/api/wait.rs
// wait_for_event, src/api/subscriptions.rs). The connection stays open; right after
// `subscription_started` and then every 100 ms the server checks whether the peer wrote anything
// or closed (either ends the stream), then lets each subscription push at most one event. In 0.8
// lifecycle subscriptions start at sequence 0 and replay the ring first (one matching event per
// tick, ahead of live ones); in 0.9 (PR #3134) they start at the sequence current when the
// request began, so events pushed while the subscriptions are set up still arrive.
// Pane-scoped ones start now. A pane-scoped probe failure answers one error line whose id is
// `<request id>:sub:<index>:probe` (the probe's request id leaks through; a later master rewrites
// it to the request id, not confirmed for 0.9.3, not modelled). Behind switches, the proposal of
// PR #4225: drain every retained event per tick, and answer `events_lost` and close when the
// cursor fell out of the ring.
import { envelope, type HubEvent } from "./event-hub.js";
import type {
  eventsSubscribeParams,
  eventsWaitParams,
  OutputMatchSpec,
  SubscriptionSpec,
} from "./methods.js";
import type { HerdrSim } from "./sim.js";
import {
  errorLine,
  paneNotFound,
  successLine,
  toJson,
  type Wire,
  type WireObject,
} from "./wire.js";

export const POLL_INTERVAL_MS = 100;

export type StreamPeer = {
  /** True once the client wrote anything after the request line, half-closed or went away. */
  readonly closed: () => boolean;
  readonly write: (line: string) => void;
  readonly end: () => void;
};

type Presentation = { title: Wire; display_agent: Wire; state_labels: Wire };

/** The subscription's cursor was evicted (proposal switch `eventsLost`). */
const LOST = Symbol("events_lost");

type Active = {
  /** The event lines to push this tick (at most one unless draining), or LOST. */
  poll(): Promise<string[] | typeof LOST>;
};

export const EVENTS_LOST_MESSAGE =
  "event subscription fell behind retained history; resubscribe and resync with session.snapshot";

function eventLine(sim: HerdrSim, value: WireObject): string {
  return toJson(value, sim.switches.eventKeyOrder === "sorted");
}

/** ActiveEventSubscription: skip other kinds, push the next matching event (or all of them). */
function lifecycle(sim: HerdrSim, name: string, start: number): Active {
  const kind = name.replaceAll(".", "_");
  let last = sim.switches.lifecycleReplay ? 0 : start;
  return {
    poll: async () => {
      const s = sim.switches;
      if (s.eventsLost && sim.hub.lostAfter(last)) return LOST;
      const out: string[] = [];
      for (const { sequence, event } of sim.hub.eventsAfter(last)) {
        last = sequence;
        if (event.kind !== kind) continue;
        out.push(eventLine(sim, envelope(event)));
        if (s.subscriptionDrain === "one") break;
      }
      return out;
    },
  };
}

type StatusSnapshot = {
  pane_id: string;
  workspace_id: string;
  agent_status: string;
  agent: Wire;
} & Presentation;

function statusSnapshot(sim: HerdrSim, paneId: string): StatusSnapshot | null {
  const loc = sim.parsePaneId(paneId);
  if (loc === null) return null;
  return statusOf(sim.paneInfoAt(loc));
}

/** The status fields of a pane's info, or of a pane.agent_status_changed event's data. */
function statusOf(o: WireObject): StatusSnapshot {
  return {
    pane_id: o.pane_id as string,
    workspace_id: o.workspace_id as string,
    agent_status: o.agent_status as string,
    agent: o.agent,
    title: o.title,
    display_agent: o.display_agent,
    state_labels: o.state_labels,
  };
}

function statusEvent(s: StatusSnapshot): WireObject {
  return {
    event: "pane.agent_status_changed",
    data: {
      pane_id: s.pane_id,
      workspace_id: s.workspace_id,
      agent_status: s.agent_status,
      agent: s.agent,
      title: s.title,
      display_agent: s.display_agent,
      state_labels: s.state_labels,
    },
  };
}

const samePresentation = (a: Presentation, b: Presentation) =>
  toJson(a as WireObject) === toJson(b as WireObject);

export class PaneGone extends Error {}

/** ActiveAgentStatusChangedSubscription: hub events first, then a snapshot comparison. */
function agentStatus(
  sim: HerdrSim,
  probe: StatusSnapshot,
  filter: string | undefined,
): {
  poll: () => StatusSnapshot | null | PaneGone;
  pollBatch: () => StatusSnapshot[] | typeof LOST;
} {
  let last = sim.hub.currentSequence();
  let lastStatus = probe.agent_status;
  let lastPresentation: Presentation = probe;
  let initial: StatusSnapshot | null =
    filter !== undefined && filter === probe.agent_status ? probe : null;
  const fromHistory = (d: WireObject): StatusSnapshot | null => {
    const snap = statusOf(d);
    lastStatus = snap.agent_status;
    lastPresentation = snap;
    initial = null;
    return filter !== undefined && filter !== snap.agent_status ? null : snap;
  };
  const snapshot = (): StatusSnapshot | null | PaneGone => {
    if (sim.hub.currentSequence() !== last) return null;
    if (initial !== null) {
      const out = initial;
      initial = null;
      return out;
    }
    const before = last;
    const pane = statusSnapshot(sim, probe.pane_id);
    if (sim.hub.currentSequence() !== before) return null;
    if (pane === null) return new PaneGone(`pane ${probe.pane_id} not found`);
    const statusChanged = pane.agent_status !== lastStatus;
    const presentationChanged = !samePresentation(pane, lastPresentation);
    lastStatus = pane.agent_status;
    lastPresentation = pane;
    if (!(statusChanged || presentationChanged)) return null;
    if (filter !== undefined && filter !== pane.agent_status) return null;
    last = sim.hub.currentSequence();
    return pane;
  };
  const mine = (kind: string, d: WireObject) =>
    kind === "pane_agent_status_changed" && d.pane_id === probe.pane_id;
  return {
    poll: () => {
      for (const { sequence, event } of sim.hub.eventsAfter(last)) {
        last = sequence;
        if (!mine(event.kind, event.data)) continue;
        const snap = fromHistory(event.data);
        if (snap !== null) return snap;
      }
      return snapshot();
    },
    pollBatch: () => {
      if (sim.switches.eventsLost && sim.hub.lostAfter(last)) return LOST;
      const out: StatusSnapshot[] = [];
      for (const { sequence, event } of sim.hub.eventsAfter(last)) {
        last = sequence;
        if (!mine(event.kind, event.data)) continue;
        const snap = fromHistory(event.data);
        if (snap !== null) out.push(snap);
      }
      if (out.length === 0) {
        const snap = snapshot();
        if (snap !== null && !(snap instanceof PaneGone)) out.push(snap);
      }
      return out;
    },
  };
}

async function scrollOf(sim: HerdrSim, paneId: string): Promise<WireObject | null | undefined> {
  const loc = sim.parsePaneId(paneId);
  if (loc === null) return undefined;
  const facts = (await sim.tmux.listPanes()).get(loc.pane.terminal.tmuxPaneId);
  if (facts === undefined) return null;
  return {
    offset_from_bottom: facts.scrollPosition,
    max_offset_from_bottom: facts.historySize,
    viewport_rows: facts.height,
  };
}

async function readPane(
  sim: HerdrSim,
  paneId: string,
  lines: number | undefined,
): Promise<string | null> {
  const loc = sim.parsePaneId(paneId);
  if (loc === null) return null;
  return sim.tmux.capture(loc.pane.terminal.tmuxPaneId, lines).catch(() => "");
}

function matcher(spec: OutputMatchSpec): ((line: string) => boolean) | string {
  if (spec.type === "substring") return (line) => line.includes(spec.value);
  try {
    const re = new RegExp(spec.value, "u");
    return (line) => re.test(line);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

type Built = { active: Active } | { error: string };

async function build(
  sim: HerdrSim,
  id: string,
  index: number,
  sub: SubscriptionSpec,
  start: number,
): Promise<Built> {
  const probeId = `${id}:sub:${index}:probe`;
  if (sub.type === "lifecycle") return { active: lifecycle(sim, sub.name, start) };
  if (sub.type === "pane.agent_status_changed") {
    const probe = statusSnapshot(sim, sub.pane_id);
    if (probe === null) return { error: paneNotFound(probeId, sub.pane_id) };
    const s = agentStatus(sim, probe, sub.agent_status);
    return {
      active: {
        poll: async () => {
          if (sim.switches.subscriptionDrain === "batch" || sim.switches.eventsLost) {
            const batch = s.pollBatch();
            if (batch === LOST) return LOST;
            const lines = batch.map((r) => eventLine(sim, statusEvent(r)));
            return sim.switches.subscriptionDrain === "batch" ? lines : lines.slice(0, 1);
          }
          const r = s.poll();
          return r === null || r instanceof PaneGone ? [] : [eventLine(sim, statusEvent(r))];
        },
      },
    };
  }
  if (sub.type === "pane.scroll_changed") {
    let last = await scrollOf(sim, sub.pane_id);
    if (last === undefined) return { error: paneNotFound(probeId, sub.pane_id) };
    const loc = sim.parsePaneId(sub.pane_id);
    const publicId = loc === null ? sub.pane_id : (sim.paneInfoAt(loc).pane_id as string);
    return {
      active: {
        poll: async () => {
          const now = await scrollOf(sim, publicId);
          if (now === undefined || toJson(now) === toJson(last ?? null)) return [];
          last = now;
          if (now === null) return [];
          const ws = publicId.split(":")[0] as string;
          return [
            eventLine(sim, {
              event: "pane.scroll_changed",
              data: { pane_id: publicId, workspace_id: ws, scroll: now },
            }),
          ];
        },
      },
    };
  }
  const match = matcher(sub.match);
  if (typeof match === "string") return { error: errorLine(id, "invalid_regex", match) };
  if ((await readPane(sim, sub.pane_id, sub.lines)) === null)
    return { error: paneNotFound(probeId, sub.pane_id) };
  let matching = false;
  return {
    active: {
      poll: async () => {
        const text = await readPane(sim, sub.pane_id, sub.lines);
        if (text === null) return [];
        const line = text.split("\n").find(match);
        if (line === undefined) {
          matching = false;
          return [];
        }
        if (matching) return [];
        matching = true;
        const loc = sim.parsePaneId(sub.pane_id);
        if (loc === null) return [];
        const info = sim.paneInfoAt(loc);
        const out = eventLine(sim, {
          event: "pane.output_matched",
          data: {
            pane_id: info.pane_id,
            matched_line: line,
            read: {
              pane_id: info.pane_id,
              workspace_id: info.workspace_id,
              tab_id: info.tab_id,
              source: sub.source === "recent" ? "recent_unwrapped" : sub.source,
              format: "text",
              text: text.replace(/\n+$/, ""),
              revision: 0,
              truncated: false,
            },
          },
        });
        return [out];
      },
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function subscribe(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof eventsSubscribeParams>,
  peer: StreamPeer,
  firstLine: (line: string) => Promise<boolean>,
): Promise<void> {
  // 0.9: lifecycle subscriptions start at the request boundary (event_start_sequence).
  const start = sim.hub.currentSequence();
  const actives: Active[] = [];
  for (const [index, sub] of p.subscriptions.entries()) {
    const built = await build(sim, id, index, sub, start);
    if ("error" in built) {
      await firstLine(built.error);
      peer.end();
      return;
    }
    actives.push(built.active);
  }
  if (!(await firstLine(successLine(id, { type: "subscription_started" })))) return;
  for (;;) {
    if (peer.closed() || sim.stoppedFlag()) return peer.end();
    for (const a of actives) {
      const lines = await a.poll();
      if (lines === LOST) {
        peer.write(errorLine(id, "events_lost", EVENTS_LOST_MESSAGE));
        return peer.end();
      }
      for (const line of lines) peer.write(line);
    }
    await sleep(POLL_INTERVAL_MS);
  }
}

export async function waitForEvent(
  sim: HerdrSim,
  id: string,
  p: ReturnType<typeof eventsWaitParams>,
  peer: StreamPeer,
  firstLine: (line: string) => Promise<boolean>,
): Promise<void> {
  const deadline = p.timeout_ms === undefined ? null : Date.now() + p.timeout_ms;
  const m = p.match_event;
  if (m.event !== "pane_agent_status_changed") {
    await firstLine(
      errorLine(
        id,
        "unsupported_event_wait_match",
        "events.wait currently supports pane agent status matches",
      ),
    );
    return peer.end();
  }
  const probe = statusSnapshot(sim, m.pane_id);
  if (probe === null) {
    await firstLine(paneNotFound(`${id}:sub:0:probe`, m.pane_id));
    return peer.end();
  }
  const s = agentStatus(sim, probe, m.agent_status);
  for (;;) {
    if (peer.closed() || sim.stoppedFlag()) return peer.end();
    const r = s.poll();
    if (r instanceof PaneGone) {
      await firstLine(errorLine(id, "pane_not_found", r.message));
      return peer.end();
    }
    if (r !== null) {
      const event: HubEvent = {
        kind: "pane_agent_status_changed",
        data: statusEvent(r).data as WireObject,
      };
      await firstLine(successLine(id, { type: "wait_matched", event: envelope(event) }));
      return peer.end();
    }
    if (deadline !== null && Date.now() >= deadline) {
      await firstLine(errorLine(id, "timeout", "timed out waiting for event match"));
      return peer.end();
    }
    await sleep(POLL_INTERVAL_MS);
  }
}
