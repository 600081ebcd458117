/**
 * Groups of leader check names (lib/proof/leader.ts) that the pure and the end-to-end leader
 * tests expect to fail together.
 */

/** What a leader that reports another process's pid fails: every kernel cross-check of that pid. */
export const WRONG_PID_FAILS = [
  "leader.peer_pid",
  "leader.peer_identity",
  "leader.listens_on_socket",
  "leader.lock_pid",
  "leader.flock_holder",
  "leader.ppid",
];

/** What fails when the leader's process facts cannot be read (dead pid, access denied). */
export const NO_LEADER_FACTS_FAILS = [
  "leader.pid_alive",
  "leader.executable",
  "leader.uid",
  "leader.cwd",
  "leader.ppid",
  "leader.peer_identity",
];
