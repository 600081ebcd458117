/**
 * The consent gate (pager app/consent.rs `consent_verdict`, event_loop.rs
 * `seed_consent_state_from_gate`; util/config/consent.rs). It is armed only by the settings
 * server: `RemoteSettings.consent_gate` `{id, version, title?, body, accept_label?}` for the
 * signed-in account (here `GROK_SIM_CONSENT_GATE`, the server's answer). It is not shown in
 * minimal mode, when the payload is unusable, or when config.toml already records an answer for
 * that notice id by the same account at this version or newer (`[consent.answers.<id>]`
 * `version`, `account`). Accepting (`a`) writes that answer; `q` quits.
 */
import { accountEmail } from "../auth.js";
import { field, parseJson, str } from "../json.js";
import { consentAnswers } from "../settings.js";
import { setTomlKey, updateConfigToml } from "../toml-edit.js";

export interface ConsentNotice {
  id: string;
  version: number;
  title: string;
  body: string;
  acceptLabel: string;
}

/** ConsentNotice::try_from_remote, reduced: an id, a plausible version and a body. */
function noticeFrom(raw: string | undefined): ConsentNotice | undefined {
  if (raw === undefined) return undefined;
  const gate = parseJson(raw);
  const id = str(field(gate, "id"));
  const version = field(gate, "version");
  const body = str(field(gate, "body"))?.trim();
  if (id === undefined || !/^[A-Za-z0-9_.-]{1,64}$/.test(id)) return undefined;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 0) return undefined;
  if (version > 10_000 || body === undefined || body === "") return undefined;
  const title = str(field(gate, "title"))?.trim();
  const label = str(field(gate, "accept_label"))?.trim();
  return {
    id,
    version,
    title: title === undefined || title === "" ? "Updates to our terms" : title,
    body,
    acceptLabel: label === undefined || label === "" ? "Got it" : label,
  };
}

/** consent_verdict: the notice to show, or undefined (Done). */
export function pendingConsent(
  raw: string | undefined,
  minimal: boolean,
): ConsentNotice | undefined {
  if (minimal) return undefined;
  const notice = noticeFrom(raw);
  if (notice === undefined) return undefined;
  const account = accountEmail();
  if (account === undefined) return notice;
  const answer = consentAnswers().get(notice.id);
  if (answer !== undefined && answer.account === account && answer.version >= notice.version) {
    return undefined;
  }
  return notice;
}

/** set_consent_answer: the local record that stops the notice re-asking on this machine. */
export function recordConsent(notice: ConsentNotice): void {
  const account = accountEmail();
  updateConfigToml((text) => {
    let next = setTomlKey(text, ["consent", "answers", notice.id], "version", notice.version);
    if (account !== undefined) {
      next = setTomlKey(next, ["consent", "answers", notice.id], "account", account);
    }
    return next;
  });
}
