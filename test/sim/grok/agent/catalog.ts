/**
 * The simulated model catalog and its wire projections: ModelInfo with the `_meta` keys of
 * agent/config.rs to_acp_model_info, SessionModelState, and the `x.ai/sessionConfig` option rows
 * of agent/session_config.rs (a "model" row per model, a "mode" row per effort of the current
 * model). Effort values are ReasoningEffort's wire names.
 */

export const EFFORT_VALUES = ["none", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export type Effort = (typeof EFFORT_VALUES)[number];

export function parseEffort(value: unknown): Effort | undefined {
  return EFFORT_VALUES.find((e) => e === value);
}

const EFFORT_LABEL: Record<Effort, string> = {
  none: "None",
  minimal: "Minimal",
  low: "Low",
  medium: "Medium",
  high: "High",
  xhigh: "X-High",
  max: "Max",
};

export interface SimModel {
  id: string;
  name: string;
  description?: string;
  contextTokens: number;
  agentType: string;
  /** The model's default effort; undefined for models without reasoning effort. */
  defaultEffort?: Effort;
  efforts: Effort[];
}

export const MODELS: readonly SimModel[] = [
  {
    id: "grok-build",
    name: "Grok Build",
    description: "Grok's agentic coding model",
    contextTokens: 256_000,
    agentType: "grok-build",
    defaultEffort: "high",
    efforts: ["low", "medium", "high"],
  },
  {
    id: "grok-4.5",
    name: "Grok 4.5",
    contextTokens: 2_000_000,
    agentType: "grok-build",
    defaultEffort: "medium",
    efforts: ["minimal", "low", "medium", "high", "xhigh"],
  },
  {
    id: "grok-code-fast-1",
    name: "Grok Code Fast",
    contextTokens: 256_000,
    agentType: "grok-build",
    efforts: [],
  },
  // A model on a strict harness (agent type `codex`), so a model switch can be incompatible with
  // a grok-build session (model_switch.rs); a simulator invention standing for the real catalog's
  // such models.
  {
    id: "grok-codex-sim",
    name: "Grok Codex (simulated harness)",
    contextTokens: 256_000,
    agentType: "codex",
    efforts: [],
  },
];

export const DEFAULT_MODEL_ID = "grok-build";

export function findModel(id: string): SimModel | undefined {
  return MODELS.find((m) => m.id === id);
}

function effortOption(model: SimModel, e: Effort): Record<string, unknown> {
  return {
    id: e,
    value: e,
    label: EFFORT_LABEL[e],
    description: null,
    default: e === model.defaultEffort,
  };
}

export function modelInfo(model: SimModel): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    totalContextTokens: model.contextTokens,
    agentType: model.agentType,
  };
  if (model.defaultEffort !== undefined) {
    meta.supportsReasoningEffort = true;
    meta.reasoningEffort = model.defaultEffort;
  }
  if (model.efforts.length > 0)
    meta.reasoningEfforts = model.efforts.map((e) => effortOption(model, e));
  const info: Record<string, unknown> = { modelId: model.id, name: model.name };
  if (model.description !== undefined) info.description = model.description;
  info._meta = meta;
  return info;
}

export function modelState(currentModelId: string): Record<string, unknown> {
  return { currentModelId, availableModels: MODELS.map(modelInfo) };
}

export function sessionConfigOptions(
  currentModelId: string,
  effort: Effort | undefined,
): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = MODELS.map((m) => ({
    id: m.id,
    category: "model",
    label: m.name === "" ? m.id : m.name,
    selected: m.id === currentModelId,
  }));
  const current = findModel(currentModelId);
  for (const e of current?.efforts ?? []) {
    rows.push({ id: e, category: "mode", label: EFFORT_LABEL[e], selected: e === effort });
  }
  return rows;
}

/** apply_supported_effort: an override applies only to a model that supports effort at all. */
export function effectiveEffort(model: SimModel, override: Effort | undefined): Effort | undefined {
  if (model.defaultEffort === undefined) return undefined;
  return override ?? model.defaultEffort;
}
