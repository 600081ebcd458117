/**
 * Model and reasoning-effort selection, checked against what the session itself offers (pure;
 * the ACP session sends the request): an unknown model or effort refuses up front, and the
 * `model_changed` echo must confirm both, never a silent fallback (docs/design/decisions.md §7.2;
 * docs/design/grok-leader-protocol.md §10).
 */
import * as v from "valibot";
import { GrokError } from "./grok-error.js";

/** `ReasoningEffort` tokens (`#[serde(rename_all = "lowercase")]`). */
export const REASONING_EFFORTS = [
  "none",
  "minimal",
  "low",
  "medium",
  "high",
  "xhigh",
  "max",
] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

const EffortTokenSchema = v.picklist(REASONING_EFFORTS);

/** One `reasoningEfforts` row; a bare string is accepted as the source's `Bare` form. */
const EffortOptionSchema = v.union([
  v.pipe(
    EffortTokenSchema,
    v.transform((value) => ({ id: value, value })),
  ),
  v.pipe(
    v.looseObject({ value: EffortTokenSchema, id: v.optional(v.string()) }),
    v.transform((o) => ({ id: o.id ?? o.value, value: o.value })),
  ),
]);
export type EffortOption = { readonly id: string; readonly value: ReasoningEffort };

export const ModelInfoSchema = v.looseObject({
  modelId: v.string(),
  name: v.optional(v.string()),
  _meta: v.optional(
    v.nullable(
      v.looseObject({
        supportsReasoningEffort: v.optional(v.boolean()),
        // Invalid rows are skipped, as `parse_reasoning_effort_options` does.
        reasoningEfforts: v.optional(v.array(v.unknown())),
      }),
    ),
  ),
});

export const SessionModelStateSchema = v.looseObject({
  currentModelId: v.string(),
  availableModels: v.array(ModelInfoSchema),
});
export type SessionModelState = v.InferOutput<typeof SessionModelStateSchema>;

/** `_meta["x.ai/sessionConfig"]` of a new/load/resume response. */
export const SessionConfigSchema = v.looseObject({
  options: v.array(
    v.looseObject({
      id: v.string(),
      category: v.string(),
      selected: v.optional(v.boolean()),
    }),
  ),
});
export type SessionConfig = v.InferOutput<typeof SessionConfigSchema>;

/** What we will send and what the echo must carry. */
export interface ModelSelection {
  readonly modelId: string;
  /** Canonical effort token, or null when the caller chose none (the agent keeps its default). */
  readonly effort: ReasoningEffort | null;
}

/** The efforts a model offers: its own list, else the session's "mode" rows when it supports effort. */
export function effortsFor(
  model: v.InferOutput<typeof ModelInfoSchema>,
  sessionConfig: SessionConfig | null,
): EffortOption[] {
  const own: EffortOption[] = [];
  for (const raw of model._meta?.reasoningEfforts ?? []) {
    const parsed = v.safeParse(EffortOptionSchema, raw);
    if (parsed.success) own.push(parsed.output);
  }
  if (own.length > 0) return own;
  if (model._meta?.supportsReasoningEffort !== true || sessionConfig === null) return [];
  const rows: EffortOption[] = [];
  for (const o of sessionConfig.options) {
    const token = v.safeParse(EffortTokenSchema, o.id);
    if (o.category === "mode" && token.success) rows.push({ id: o.id, value: token.output });
  }
  return rows;
}

/**
 * Check a requested model (and optional effort, by option `id` or canonical `value`) against the
 * session's own options. Throws MODEL_UNKNOWN / EFFORT_UNKNOWN; never picks a substitute.
 */
export function resolveModelSelection(
  state: SessionModelState,
  sessionConfig: SessionConfig | null,
  request: { readonly modelId: string; readonly effort?: string | null },
): ModelSelection {
  const model = state.availableModels.find((m) => m.modelId === request.modelId);
  if (model === undefined) {
    throw new GrokError("MODEL_UNKNOWN", `model "${request.modelId}" is not offered`, {
      details: {
        modelId: request.modelId,
        available: state.availableModels.map((m) => m.modelId),
      },
    });
  }
  if (request.effort === undefined || request.effort === null) {
    return { modelId: model.modelId, effort: null };
  }
  const efforts = effortsFor(model, sessionConfig);
  const match = efforts.find((e) => e.id === request.effort || e.value === request.effort);
  if (match === undefined) {
    throw new GrokError(
      "EFFORT_UNKNOWN",
      `effort "${request.effort}" is not offered for model "${model.modelId}"`,
      {
        details: {
          modelId: model.modelId,
          effort: request.effort,
          available: efforts.map((e) => e.id),
        },
      },
    );
  }
  return { modelId: model.modelId, effort: match.value };
}

/** Params of the custom `session/set_model` request (`handlers/model_switch.rs`). */
export function setModelParams(
  sessionId: string,
  selection: ModelSelection,
): { sessionId: string; modelId: string; _meta?: { reasoningEffort: string } } {
  return selection.effort === null
    ? { sessionId, modelId: selection.modelId }
    : { sessionId, modelId: selection.modelId, _meta: { reasoningEffort: selection.effort } };
}

/** A `model_changed` echo as the tap reports it. */
export interface ModelEcho {
  readonly modelId: string;
  readonly reasoningEffort: string | null;
}

/** Whether an echo confirms the selection: the model always, the effort when one was chosen. */
export function echoConfirms(selection: ModelSelection, echo: ModelEcho): boolean {
  if (echo.modelId !== selection.modelId) return false;
  return selection.effort === null || echo.reasoningEffort === selection.effort;
}
