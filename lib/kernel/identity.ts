/**
 * A process identity's two pure helpers (kernel/port.ts re-exports them): in a file of their own
 * so a proof over recorded facts (lib/proof/process.ts, which `verify-proof process` loads) need
 * not load every kernel call with the port (issue 19).
 */
import type { ProcessIdentity } from "./types.js";

/** A process identity as recorded JSON (`{kind, value}`), or null. */
export function identityJson(id: ProcessIdentity): { kind: ProcessIdentity["kind"]; value: string };
export function identityJson(
  id: ProcessIdentity | null,
): { kind: ProcessIdentity["kind"]; value: string } | null;
export function identityJson(
  id: ProcessIdentity | null,
): { kind: ProcessIdentity["kind"]; value: string } | null {
  return id === null ? null : { kind: id.kind, value: id.value };
}

/** Two identities name the same process (both known, same kind and value). */
export function sameIdentity(a: ProcessIdentity | null, b: ProcessIdentity | null): boolean {
  return a !== null && b !== null && a.kind === b.kind && a.value === b.value;
}
