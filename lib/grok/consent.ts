/**
 * Whether the TUI will show the account's consent notice (a terms update) before it creates its
 * session. The notice is armed only by the settings server for the signed-in account
 * (`xai-grok-pager/src/app/consent.rs` `consent_verdict`), and the TUI skips it when the
 * profile's config.toml records an answer by that account at that version or newer
 * (`already_answered`; `[consent.answers.<id>]`, `xai-grok-shell/src/util/config/consent.rs`).
 * The server stops sending a notice once its own record of the answer exists; until then only
 * the local answer keeps it from asking again ("The server is authoritative once the upstream
 * record exists", consent.rs). So a temporary profile, which records no answers, is asked again
 * whenever the profile its login came from holds an answer the server has not acknowledged
 * (`acked` false): the notice is still being sent. Anything else is merely possible.
 * docs/design/decisions.md §12.2.
 */
import { isTable, type TomlFile, tomlGet } from "./toml-file.js";

export type ConsentPrediction = "expected" | "possible";

/** The notice ids the owner answered but the server has not acknowledged yet. */
export function unackedAnswers(config: TomlFile): string[] {
  if (config.status !== "ok") return [];
  const answers = tomlGet(config.table, "consent", "answers");
  if (!isTable(answers)) return [];
  return Object.entries(answers)
    .filter(([, a]) => isTable(a) && a.acked !== true)
    .map(([id]) => id)
    .sort();
}

/**
 * For a temporary profile, `sourceConfig` is the config.toml beside the copied login (the owner's
 * profile); for the owner's own profile it is null: the TUI reads that profile's own answers.
 */
export function predictConsent(sourceConfig: TomlFile | null): ConsentPrediction {
  return sourceConfig !== null && unackedAnswers(sourceConfig).length > 0 ? "expected" : "possible";
}
