/**
 * grok-seat/kernel: per-process and per-socket facts from the kernel with strong identities,
 * peer credentials, process handles that never signal a reused pid, flock (lib/kernel). The
 * native addon is loaded by the first call, never by the import.
 */
export * from "../kernel/index.js";
