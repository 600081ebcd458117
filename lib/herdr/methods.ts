/**
 * The closed list of Herdr methods this library may call, with their params and result schemas.
 * The client accepts nothing else, at compile time (the method name is a key of this map) and at
 * run time (`assertAllowedMethod`). In particular none of the input-injection methods of
 * docs/design/herdr-socket-api.md §8 can be sent: a brief is never typed into a pane (ADR 0224, "Never type
 * briefs"); launching goes through `layout.apply` with an argv command instead.
 */
import type * as v from "valibot";
import { UsageError } from "../errors.js";
import type { HerdrErrorCode } from "./herdr-error.js";
import {
  LayoutApplyResultSchema,
  PaneCurrentResultSchema,
  PaneInfoResultSchema,
  PaneListResultSchema,
  PaneProcessInfoResultSchema,
  PongSchema,
  TabCreatedResultSchema,
  WorkspaceCreatedResultSchema,
} from "./wire-envelope.js";

/** A pane node of `layout.apply` params (`LayoutPane`, `src/api/schema/panes.rs`). */
export interface LayoutPaneParams {
  readonly type: "pane";
  readonly label?: string;
  readonly cwd?: string;
  /** argv, spawned directly with no shell (`PaneRuntime::spawn_argv_command`). */
  readonly command?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

export interface LayoutApplyParams {
  readonly workspace_id?: string;
  readonly tab_id?: string;
  readonly tab_label?: string;
  readonly focus?: boolean;
  readonly root: LayoutPaneParams;
}

export interface WorkspaceCreateParams {
  readonly cwd?: string;
  readonly focus?: boolean;
  readonly label?: string;
  readonly env?: Readonly<Record<string, string>>;
}

export interface TabCreateParams {
  readonly workspace_id?: string;
  readonly cwd?: string;
  readonly focus?: boolean;
  readonly label?: string;
  readonly env?: Readonly<Record<string, string>>;
}

/** Params per allowed one-shot method. `params` is always sent, `{}` when empty (§1.4). */
export interface HerdrParams {
  readonly ping: Readonly<Record<string, never>>;
  readonly "pane.get": { readonly pane_id: string };
  readonly "pane.list": { readonly workspace_id?: string };
  readonly "pane.current": { readonly caller_pane_id?: string };
  readonly "pane.process_info": { readonly pane_id?: string };
  readonly "layout.apply": LayoutApplyParams;
  readonly "workspace.create": WorkspaceCreateParams;
  readonly "tab.create": TabCreateParams;
}

export type HerdrMethod = keyof HerdrParams;

/** The result schema per method; the reply's `result.type` must match the schema's literal. */
export const RESULT_SCHEMAS = {
  ping: PongSchema,
  "pane.get": PaneInfoResultSchema,
  "pane.list": PaneListResultSchema,
  "pane.current": PaneCurrentResultSchema,
  "pane.process_info": PaneProcessInfoResultSchema,
  "layout.apply": LayoutApplyResultSchema,
  "workspace.create": WorkspaceCreatedResultSchema,
  "tab.create": TabCreatedResultSchema,
} as const satisfies Record<HerdrMethod, v.GenericSchema>;

export type HerdrResult<M extends HerdrMethod> = v.InferOutput<(typeof RESULT_SCHEMAS)[M]>;

/** The only streaming method used (`events.subscribe`); it has its own client entry point. */
export const SUBSCRIBE_METHOD = "events.subscribe";

export const ALLOWED_METHODS: readonly string[] = Object.freeze([
  ...Object.keys(RESULT_SCHEMAS),
  SUBSCRIBE_METHOD,
]);

/** Methods that write into a pane's PTY or type commands (§8); listed so tests can assert on them. */
export const INJECTION_METHODS = Object.freeze([
  "pane.send_text",
  "pane.send_keys",
  "pane.send_input",
  "agent.start",
  "agent.prompt",
  "agent.send_keys",
] as const);

/** Refuse, before any byte is written, a method outside the allow-list (e.g. behind a cast). */
export function assertAllowedMethod(method: string): void {
  if (!ALLOWED_METHODS.includes(method)) {
    throw new UsageError<HerdrErrorCode>(
      "HERDR_METHOD_FORBIDDEN",
      `Herdr method "${method}" is not on this client's allow-list`,
      { details: { method, injection: (INJECTION_METHODS as readonly string[]).includes(method) } },
    );
  }
}
