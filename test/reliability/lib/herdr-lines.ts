/**
 * Valid Herdr reply and event lines (docs/design/herdr-socket-api.md §1.4-§1.5, §3-§6; `lib/herdr/wire-*.ts`),
 * compact JSON as serde_json writes it, for round-trip and mutation tests. Herdr is Rust, so its
 * strings are well-formed Unicode: no lone surrogates here.
 */
import fc from "fast-check";
import type { HerdrMethod } from "../../../lib/herdr/methods.js";
import { wellFormedTextArb } from "./text.js";

const text = wellFormedTextArb(16);
const uint = fc.nat();
const status = fc.constantFrom("idle", "working", "blocked", "done", "unknown");

export const paneInfoArb = fc.record(
  {
    pane_id: text,
    terminal_id: text,
    workspace_id: text,
    tab_id: text,
    focused: fc.boolean(),
    cwd: fc.option(text),
    label: fc.option(text),
    title: fc.option(text),
    agent: fc.option(text),
    agent_status: status,
    revision: uint,
  },
  {
    requiredKeys: [
      "pane_id",
      "terminal_id",
      "workspace_id",
      "tab_id",
      "focused",
      "agent_status",
      "revision",
    ],
  },
);

const tabInfoArb = fc.record({
  tab_id: text,
  workspace_id: text,
  number: uint,
  label: text,
  focused: fc.boolean(),
  pane_count: uint,
  agent_status: status,
});

/** A success `result` body per allowed method. */
const RESULTS: Record<HerdrMethod, fc.Arbitrary<object>> = {
  ping: fc.record(
    {
      type: fc.constant("pong"),
      version: text,
      protocol: fc.option(uint),
      capabilities: fc.option(
        fc.record({ live_handoff: fc.boolean(), detached_server_daemon: fc.boolean() }),
      ),
    },
    { requiredKeys: ["type", "version"] },
  ),
  "pane.get": fc.record({ type: fc.constant("pane_info"), pane: paneInfoArb }),
  "pane.list": fc.record({
    type: fc.constant("pane_list"),
    panes: fc.array(paneInfoArb, { maxLength: 3 }),
  }),
  "pane.current": fc.record({ type: fc.constant("pane_current"), pane: paneInfoArb }),
  "pane.process_info": fc.record({
    type: fc.constant("pane_process_info"),
    process_info: fc.record(
      {
        pane_id: text,
        shell_pid: fc.option(uint),
        foreground_process_group_id: fc.option(uint),
        foreground_processes: fc.option(
          fc.array(
            fc.record({ pid: uint, name: text, argv: fc.option(fc.array(text, { maxLength: 3 })) }),
            {
              maxLength: 3,
            },
          ),
        ),
      },
      { requiredKeys: ["pane_id"] },
    ),
  }),
  "layout.apply": fc.record({
    type: fc.constant("layout_apply"),
    layout: fc.record({
      workspace_id: text,
      tab_id: text,
      zoomed: fc.boolean(),
      focused_pane_id: text,
      root: fc.record({
        type: fc.constant("pane"),
        pane_id: text,
        command: fc.array(text, { maxLength: 3 }),
      }),
    }),
  }),
  "workspace.create": fc.record({
    type: fc.constant("workspace_created"),
    workspace: fc.record({
      workspace_id: text,
      number: uint,
      label: text,
      focused: fc.boolean(),
      pane_count: uint,
      tab_count: uint,
      active_tab_id: text,
      agent_status: status,
    }),
    tab: tabInfoArb,
    root_pane: paneInfoArb,
  }),
  "tab.create": fc.record({
    type: fc.constant("tab_created"),
    tab: tabInfoArb,
    root_pane: paneInfoArb,
  }),
};

export const METHODS = Object.keys(RESULTS) as HerdrMethod[];

export interface ReplyCase {
  readonly method: HerdrMethod;
  readonly id: string;
  /** The reply line without its newline. */
  readonly line: string;
  readonly kind: "result" | "error";
}

const idArb = fc.nat({ max: 1_000_000 }).map((k) => `gs-1-${k}`);

/** A valid reply line to one request: a typed result or a Herdr `{code,message}` error. */
export const replyArb: fc.Arbitrary<ReplyCase> = fc
  .tuple(fc.constantFrom(...METHODS), idArb, fc.nat({ max: 9 }))
  .chain(
    ([method, id, pick]): fc.Arbitrary<ReplyCase> =>
      pick === 0
        ? fc
            .record({
              code: fc
                .string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz_"), maxLength: 20 })
                .map((rest) => `e${rest}`),
              message: text,
            })
            .map((error) => ({
              method,
              id,
              line: JSON.stringify({ id, error }),
              kind: "error" as const,
            }))
        : RESULTS[method].map((result) => ({
            method,
            id,
            line: JSON.stringify({ id, result }),
            kind: "result" as const,
          })),
  );

/** A valid pushed event line, lifecycle or pane-scoped (§1.5, §6). */
export const eventLineArb: fc.Arbitrary<string> = fc.oneof(
  fc
    .record({
      kind: fc.constantFrom("pane_exited", "pane_closed"),
      pane_id: text,
      workspace_id: text,
    })
    .map(({ kind, pane_id, workspace_id }) =>
      JSON.stringify({ event: kind, data: { type: kind, pane_id, workspace_id } }),
    ),
  fc
    .record({ pane_id: text, agent_status: status })
    .map((data) => JSON.stringify({ event: "pane.agent_status_changed", data })),
);
