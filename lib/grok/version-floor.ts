/**
 * The oldest Grok Build a seat admits (ADR 0224 (docs/design/adr-0224.md) and its amendment of
 * 2026-10-17; docs/design/decisions.md §6). lib/grok/version.ts judges it; it stands alone so a
 * refusal's owner step (lib/seat/refusal.ts, loaded by the root entry at import) can name it
 * without loading the version probe and the leader's messages (issue 19).
 */
export const VERSION_FLOOR = "1.0.46";
