// Process handles on Linux: a pidfd kept open (docs/design/kernel-proofs.md §3 "TOCTOU",
// docs/design/reliability-plan.md §2). pidfd_send_signal can never reach a recycled pid, and the
// pidfd turns readable (POLLIN) when the process exits, so exit is observed without polling
// kill(pid, 0).
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux.h"

namespace proofs {

namespace {

// POLLIN on a pidfd = the process exited (it may still be an unreaped zombie).
bool exited(int pidfd) {
  pollfd p{pidfd, POLLIN, 0};
  int n;
  do {
    n = poll(&p, 1, 0);
  } while (n < 0 && errno == EINTR);
  return n > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

}  // namespace

Error handle_open(int32_t pid, const char* expected_identity, ProcessHandle* out) {
  out->pid = pid;
  out->fd = -1;
  out->exit_fd = -1;
  uint64_t ino = 0;
  int pidfd = linux_backend::open_pidfd(pid, &ino);
  if (pidfd < 0) {
    if (errno == ENOSYS) return Error{Failure::kUnsupported, ENOSYS, "pidfd_open", pid};
    return linux_backend::classify(errno, "pidfd_open", pid, -1);
  }
  out->uniqueid = ino;
  if (ino != 0) {
    out->identity_kind = IdentityKind::kLinuxPidfs;
    linux_backend::format_pidfs_identity(ino, out->identity);
  } else {
    // No pidfs (< 6.9): identify by start tick, read after the pidfd pinned the process, then
    // verify the pinned process was not reaped in between (then the tick is its own).
    int dir = linux_backend::open_proc_dir(pid);
    linux_backend::StatFields st;
    int err = dir < 0 ? errno : linux_backend::read_stat(dir, &st);
    if (dir >= 0) close(dir);
    bool pinned = syscall(SYS_pidfd_send_signal, pidfd, 0, nullptr, 0) == 0 || errno == EPERM;
    if (err != 0 || !pinned) {
      close(pidfd);
      return Error{Failure::kNoSuchProcess, err != 0 ? err : ESRCH, "read(stat)", pid};
    }
    out->identity_kind = IdentityKind::kLinuxBootTicks;
    linux_backend::format_ticks_identity(pid, st.starttime, out->identity);
  }
  // pidfd_open(pid) may itself land on a recycled pid: that is why a caller that recorded an
  // identity passes it, and a different process is refused as "no such process".
  if (expected_identity != nullptr && strcmp(expected_identity, out->identity) != 0) {
    close(pidfd);
    return Error{Failure::kNoSuchProcess, ESRCH, "identity check", pid};
  }
  out->fd = pidfd;
  return ok();
}

Error handle_signal(ProcessHandle* h, int sig) {
  if (h->fd < 0) return Error{Failure::kInvalidArgument, EBADF, "handle closed", h->pid};
  // A zombie still accepts signals; for the caller the process has exited.
  if (exited(h->fd)) return Error{Failure::kNoSuchProcess, ESRCH, "pidfd_send_signal", h->pid};
  if (syscall(SYS_pidfd_send_signal, h->fd, sig, nullptr, 0) == 0) return ok();
  int err = errno;
  if (err == ESRCH) return Error{Failure::kNoSuchProcess, err, "pidfd_send_signal", h->pid};
  if (err == EPERM) return Error{Failure::kAccessDenied, err, "pidfd_send_signal", h->pid};
  if (err == EINVAL) return Error{Failure::kInvalidArgument, err, "pidfd_send_signal", h->pid};
  if (err == ENOSYS) return Error{Failure::kUnsupported, err, "pidfd_send_signal", h->pid};
  return Error{Failure::kSyscallFailed, err, "pidfd_send_signal", h->pid};
}

Error handle_alive(ProcessHandle* h, bool* alive) {
  if (h->fd < 0) return Error{Failure::kInvalidArgument, EBADF, "handle closed", h->pid};
  *alive = !exited(h->fd);
  return ok();
}

Error handle_watch_exit(ProcessHandle* h, bool* already_exited) {
  if (h->fd < 0) return Error{Failure::kInvalidArgument, EBADF, "handle closed", h->pid};
  h->exit_fd = h->fd;  // the pidfd itself is pollable
  *already_exited = exited(h->fd);
  return ok();
}

Error handle_exit_ready(ProcessHandle* h, bool* is_exited) {
  if (h->fd < 0) return Error{Failure::kInvalidArgument, EBADF, "handle closed", h->pid};
  *is_exited = exited(h->fd);
  return ok();
}

void handle_close(ProcessHandle* h) {
  if (h->fd >= 0) close(h->fd);
  h->fd = -1;
  h->exit_fd = -1;
}

}  // namespace proofs
