/**
 * A session's permission mode and where it comes from (xai-grok-shell agent/mvp_agent
 * session_setup.rs, mod.rs `resolve_session_auto_mode`, acp_agent.rs `ext_notification`;
 * util/config/permissions.rs; pager-bin main.rs `run_agent_command`):
 *
 * - The leader computes its config defaults once, at start: `[ui] permission_mode` (or the legacy
 *   `approval_mode` / `yolo`) "always-approve" → default yolo, "auto" → default auto.
 * - session/new, session/load and session/resume read `_meta.yoloMode` (else the default yolo)
 *   and `_meta.autoMode` / `auto_mode` (else default auto, unless yolo).
 * - session/new starts the session with those. An attach to a RESIDENT session
 *   (`refresh_reconnect_session_state`) can only switch modes ON: yolo when requested and off;
 *   auto (which clears yolo) when requested without yolo. It never switches either off. So an
 *   attach without the keys re-arms the config default after the owner turned it off.
 * - `x.ai/yolo_mode_changed {yolo_mode?, auto_mode?, permission_mode?, clientIdentifier?}` sets
 *   yolo on every session of the sending client (all sessions without a sender), and turns auto
 *   on/off as asked.
 *
 * Yolo or auto makes the agent approve a tool call without asking anyone (session.ts); the
 * session's yolo flag is the roster row's `yolo` (mvp_agent/session_lifecycle.rs).
 */
import { field, isRecord } from "../json.js";
import { permissionMode } from "../settings.js";

export interface Modes {
  yolo: boolean;
  auto: boolean;
}

/** AgentConfig.default_yolo_mode / default_auto_mode at leader start. */
export function launchModeDefaults(): Modes {
  const mode = permissionMode();
  return { yolo: mode === "always-approve", auto: mode === "auto" };
}

/** The modes a session/new or attach request asks for. */
export function requestedModes(meta: unknown, defaults: Modes): Modes {
  const y = field(meta, "yoloMode");
  const yolo = typeof y === "boolean" ? y : defaults.yolo;
  const a = isRecord(meta) ? (meta.autoMode ?? meta.auto_mode) : undefined;
  const auto = typeof a === "boolean" ? a : defaults.auto && !yolo;
  return { yolo, auto: auto && !yolo };
}

export interface ModeHolder {
  yoloMode: boolean;
  autoMode: boolean;
}

/** refresh_reconnect_session_state: only ever switches on. True when something changed. */
export function applyAttachModes(session: ModeHolder, req: Modes): boolean {
  let changed = false;
  if (req.yolo && !session.yoloMode) {
    session.yoloMode = true;
    changed = true;
  }
  if (req.auto && !req.yolo && !session.autoMode) {
    session.yoloMode = false;
    session.autoMode = true;
    changed = true;
  }
  return changed;
}

/** ext_notification `x.ai/yolo_mode_changed` on one session; true when something changed. */
export function applyYoloModeChanged(
  session: ModeHolder & { originClient: string | undefined },
  params: unknown,
): boolean {
  const sender = field(params, "clientIdentifier");
  if (typeof sender === "string" && session.originClient !== sender) return false;
  const before = `${session.yoloMode} ${session.autoMode}`;
  const yolo = field(params, "yolo_mode");
  if (typeof yolo === "boolean") session.yoloMode = yolo;
  const autoExplicit = field(params, "auto_mode");
  const mode = field(params, "permission_mode");
  const wantAuto = autoExplicit === true || mode === "auto";
  const clearAuto =
    autoExplicit === false ||
    ((mode === "always-approve" || mode === "ask" || mode === "default") && !wantAuto);
  if (wantAuto && yolo !== true) {
    session.autoMode = true;
    session.yoloMode = false;
  } else if (clearAuto) {
    session.autoMode = false;
  }
  return before !== `${session.yoloMode} ${session.autoMode}`;
}
