import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import {
  echoConfirms,
  effortsFor,
  resolveModelSelection,
  type SessionConfig,
  SessionConfigSchema,
  type SessionModelState,
  SessionModelStateSchema,
  setModelParams,
} from "../../lib/grok/models.js";
import { codeOf } from "../helpers/error-code.js";

// Shapes as `to_acp_model_info` (agent/config.rs) and `build_session_config_options`
// (agent/session_config.rs) produce them.
const state: SessionModelState = v.parse(SessionModelStateSchema, {
  currentModelId: "grok-build",
  availableModels: [
    {
      modelId: "grok-build",
      name: "Grok Build",
      _meta: {
        totalContextTokens: 256000,
        agentType: "grok-build",
        supportsReasoningEffort: true,
        reasoningEffort: "high",
        reasoningEfforts: [
          { id: "low", value: "low", label: "Low", description: null, default: false },
          { id: "deep", value: "high", label: "Deep", description: null, default: true },
          "xhigh",
          { value: "quantum" },
        ],
      },
    },
    {
      modelId: "grok-legacy",
      name: "Grok Legacy",
      _meta: { totalContextTokens: 128000, agentType: "grok-build", supportsReasoningEffort: true },
    },
    {
      modelId: "grok-fast",
      name: "Grok Fast",
      _meta: { totalContextTokens: 64000, agentType: "x" },
    },
  ],
});
const config: SessionConfig = v.parse(SessionConfigSchema, {
  options: [
    { id: "grok-build", category: "model", label: "Grok Build", selected: true },
    { id: "minimal", category: "mode", label: "Minimal", selected: false },
    { id: "medium", category: "mode", label: "Medium", selected: true },
  ],
});

/** The call's error code; null when it returns (any other throw fails the test). */
const code = (fn: () => unknown): string | null => codeOf(fn, null);

test("the model's own effort list wins; invalid rows are skipped like parse_reasoning_effort_options", () => {
  const model = state.availableModels[0];
  assert.ok(model);
  assert.equal(effortsFor(model, config), [
    { id: "low", value: "low" },
    { id: "deep", value: "high" },
    { id: "xhigh", value: "xhigh" },
  ]);
});

test("without its own list a model that supports effort uses the session's mode rows", () => {
  const model = state.availableModels[1];
  assert.ok(model);
  assert.equal(effortsFor(model, config), [
    { id: "minimal", value: "minimal" },
    { id: "medium", value: "medium" },
  ]);
  assert.equal(effortsFor(model, null), []);
});

test("a model without effort support offers none", () => {
  const model = state.availableModels[2];
  assert.ok(model);
  assert.equal(effortsFor(model, config), []);
});

test("selection by option id or canonical value sends the canonical value", () => {
  assert.equal(resolveModelSelection(state, config, { modelId: "grok-build", effort: "deep" }), {
    modelId: "grok-build",
    effort: "high",
  });
  assert.equal(resolveModelSelection(state, config, { modelId: "grok-build", effort: "high" }), {
    modelId: "grok-build",
    effort: "high",
  });
  assert.equal(
    resolveModelSelection(state, config, { modelId: "grok-legacy", effort: "minimal" }),
    {
      modelId: "grok-legacy",
      effort: "minimal",
    },
  );
  assert.equal(resolveModelSelection(state, config, { modelId: "grok-fast" }), {
    modelId: "grok-fast",
    effort: null,
  });
});

test("unknown model and effort refuse, never fall back", () => {
  assert.is(
    code(() => resolveModelSelection(state, config, { modelId: "grok-9" })),
    "MODEL_UNKNOWN",
  );
  assert.is(
    code(() => resolveModelSelection(state, config, { modelId: "GROK-BUILD" })),
    "MODEL_UNKNOWN",
  );
  for (const effort of ["medium", "max", "High", "quantum", ""]) {
    assert.is(
      code(() => resolveModelSelection(state, config, { modelId: "grok-build", effort })),
      "EFFORT_UNKNOWN",
      effort,
    );
  }
  assert.is(
    code(() => resolveModelSelection(state, config, { modelId: "grok-fast", effort: "low" })),
    "EFFORT_UNKNOWN",
  );
  assert.is(
    code(() => resolveModelSelection(state, config, { modelId: "grok-legacy", effort: "high" })),
    "EFFORT_UNKNOWN",
  );
});

test("set_model params carry the effort in _meta.reasoningEffort only when chosen", () => {
  assert.equal(setModelParams("s1", { modelId: "grok-build", effort: "high" }), {
    sessionId: "s1",
    modelId: "grok-build",
    _meta: { reasoningEffort: "high" },
  });
  assert.equal(setModelParams("s1", { modelId: "grok-fast", effort: null }), {
    sessionId: "s1",
    modelId: "grok-fast",
  });
});

test("the echo must carry the model and, when chosen, the effort", () => {
  const sel = { modelId: "grok-build", effort: "high" } as const;
  assert.ok(echoConfirms(sel, { modelId: "grok-build", reasoningEffort: "high" }));
  assert.not.ok(echoConfirms(sel, { modelId: "grok-build", reasoningEffort: null }));
  assert.not.ok(echoConfirms(sel, { modelId: "grok-build", reasoningEffort: "low" }));
  assert.not.ok(echoConfirms(sel, { modelId: "grok-fast", reasoningEffort: "high" }));
  const noEffort = { modelId: "grok-fast", effort: null } as const;
  assert.ok(echoConfirms(noEffort, { modelId: "grok-fast", reasoningEffort: null }));
  assert.ok(echoConfirms(noEffort, { modelId: "grok-fast", reasoningEffort: "medium" }));
});

test.run();
