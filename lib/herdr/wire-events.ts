/**
 * Lines pushed on an `events.subscribe` stream (docs/design/herdr-socket-api.md §1.5, §6;
 * `src/api/schema/events.rs`). They carry no `id` and come in two shapes:
 * - lifecycle (`EventEnvelope`): snake_case `event`, and `data.type` repeats it;
 * - pane-scoped (`SubscriptionEventEnvelope`): dotted `event`, `data` without `type`.
 */
import * as v from "valibot";
import { AgentStatusSchema } from "./wire-pane.js";

const snakeName = v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]*$/));
const dottedName = v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/));

export const LifecycleEnvelopeSchema = v.pipe(
  v.looseObject({
    event: snakeName,
    data: v.looseObject({ type: snakeName }),
  }),
  v.check((e) => e.data.type === e.event, "data.type must repeat the event name"),
);

export const PaneScopedEnvelopeSchema = v.looseObject({
  event: dottedName,
  data: v.looseObject({ pane_id: v.string() }),
});

export type HerdrEvent =
  | {
      readonly shape: "lifecycle";
      readonly event: string;
      readonly data: { readonly type: string; readonly [key: string]: unknown };
    }
  | {
      readonly shape: "pane_scoped";
      readonly event: string;
      readonly data: { readonly pane_id: string; readonly [key: string]: unknown };
    };

/** `pane_exited` / `pane_closed` data: `{type, pane_id, workspace_id}`. */
export const PaneGoneDataSchema = v.looseObject({
  type: v.picklist(["pane_exited", "pane_closed"]),
  pane_id: v.string(),
  workspace_id: v.string(),
});

/** `pane_agent_detected` data; `released`/`final_status` only when releasing (§6). */
export const PaneAgentDetectedDataSchema = v.looseObject({
  type: v.literal("pane_agent_detected"),
  pane_id: v.string(),
  workspace_id: v.string(),
  agent: v.exactOptional(v.nullable(v.string())),
  released: v.exactOptional(v.nullable(v.boolean())),
  final_status: v.exactOptional(v.nullable(AgentStatusSchema)),
});

/** Classify one pushed line already parsed as JSON; null when it has neither shape. */
export function parseEventLine(value: unknown): HerdrEvent | null {
  const life = v.safeParse(LifecycleEnvelopeSchema, value);
  if (life.success) return { shape: "lifecycle", event: life.output.event, data: life.output.data };
  const scoped = v.safeParse(PaneScopedEnvelopeSchema, value);
  if (scoped.success) {
    return { shape: "pane_scoped", event: scoped.output.event, data: scoped.output.data };
  }
  return null;
}

/**
 * A subscription as sent in `events.subscribe` params: dotted `type` names (`Subscription` enum).
 * Only the lifecycle kinds this library watches, plus the one pane-scoped kind with its filter.
 */
export type SubscriptionSpec =
  | {
      readonly type:
        | "pane.exited"
        | "pane.closed"
        | "pane.agent_detected"
        | "pane.created"
        | "pane.updated"
        | "layout.updated";
    }
  | {
      readonly type: "pane.agent_status_changed";
      readonly pane_id: string;
      readonly agent_status?: v.InferOutput<typeof AgentStatusSchema>;
    };
