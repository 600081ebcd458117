/**
 * The Herdr reply envelope and the result bodies this library reads (docs/design/herdr-socket-api.md §1.4;
 * `src/api/schema/response.rs`: `SuccessResponse`, `ErrorResponse`, `ErrorBody`,
 * `ResponseResult`, internally tagged by `type`).
 */
import * as v from "valibot";
import {
  LayoutDescriptionSchema,
  PaneInfoSchema,
  PaneProcessInfoSchema,
  ServerCapabilitiesSchema,
  TabInfoSchema,
  WorkspaceInfoSchema,
} from "./wire-pane.js";

/** `ErrorBody {code, message}`: codes are snake_case strings, never numbers. */
export const ErrorBodySchema = v.looseObject({ code: v.string(), message: v.string() });

/** `{"id":..,"error":{..}}`; `id` is `""` when the server could not parse our request. */
export const ErrorEnvelopeSchema = v.looseObject({ id: v.string(), error: ErrorBodySchema });

/** `{"id":..,"result":{"type":..}}`; the body is checked per method after the type tag. */
export const SuccessEnvelopeSchema = v.looseObject({
  id: v.string(),
  result: v.looseObject({ type: v.string() }),
});

export const ReplyEnvelopeSchema = v.union([SuccessEnvelopeSchema, ErrorEnvelopeSchema]);

/**
 * `Pong {version, protocol, capabilities}`. `protocol` appeared in 0.5.6 and `capabilities` in
 * 0.6.3 (§2.1 history), so both are optional; `capabilities` is the one place the real server may
 * write `null` (§1.4).
 */
export const PongSchema = v.looseObject({
  type: v.literal("pong"),
  version: v.string(),
  protocol: v.exactOptional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0)))),
  capabilities: v.exactOptional(v.nullable(ServerCapabilitiesSchema)),
});
export type Pong = v.InferOutput<typeof PongSchema>;

export const PaneInfoResultSchema = v.looseObject({
  type: v.literal("pane_info"),
  pane: PaneInfoSchema,
});
export const PaneListResultSchema = v.looseObject({
  type: v.literal("pane_list"),
  panes: v.array(PaneInfoSchema),
});
export const PaneCurrentResultSchema = v.looseObject({
  type: v.literal("pane_current"),
  pane: PaneInfoSchema,
});
export const PaneProcessInfoResultSchema = v.looseObject({
  type: v.literal("pane_process_info"),
  process_info: PaneProcessInfoSchema,
});
export const LayoutApplyResultSchema = v.looseObject({
  type: v.literal("layout_apply"),
  layout: LayoutDescriptionSchema,
});
export const WorkspaceCreatedResultSchema = v.looseObject({
  type: v.literal("workspace_created"),
  workspace: WorkspaceInfoSchema,
  tab: TabInfoSchema,
  root_pane: PaneInfoSchema,
});
export const TabCreatedResultSchema = v.looseObject({
  type: v.literal("tab_created"),
  tab: TabInfoSchema,
  root_pane: PaneInfoSchema,
});
/** `Ok {}`: every report and send method; it never says whether a report took effect (§5.1). */
export const OkResultSchema = v.looseObject({ type: v.literal("ok") });
/** The acknowledgement line of `events.subscribe` (§1.5). */
export const SubscriptionStartedSchema = v.looseObject({ type: v.literal("subscription_started") });
