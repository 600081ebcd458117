/**
 * Whether a process exists, as the real program asks it (kill(pid, 0); EPERM means it exists but
 * belongs to someone else): lock takeover (leader/lock.rs), collect_crashed (active_sessions.rs),
 * and the imposter fault watching the leader it poses as.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err instanceof Error && "code" in err && err.code === "EPERM";
  }
}
