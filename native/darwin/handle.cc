// Process handles on macOS (docs/design/kernel-proofs.md §1.5, §3): the p_uniqueid is re-checked
// before every signal; the signal then goes through proc_signal_with_audittoken (public from
// macOS 14.4, looked up with dlsym) with the current p_idversion, so the kernel re-checks pid +
// pidversion while it holds the process. Without it, kill() follows the re-check (a tiny race
// remains, §3). Exit is observed with kqueue EVFILT_PROC NOTE_EXIT; the kqueue fd is what the
// binding polls. As on Linux (a pidfd on a zombie), a handle opens on an exited process that is not
// reaped yet: flavor 17 with arg 1 finds zombies (proc_find_zombref, xnu bsd/kern/proc_info.c), the
// handle reports it not alive, and its exit watch fires at once (EVFILT_PROC refuses a process that
// proc_find no longer finds with ESRCH, bsd/kern/kern_event.c filt_procattach).
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/event.h>
#include <sys/time.h>
#include <unistd.h>

#include <mach/message.h>

#include "darwin.h"

namespace proofs {

namespace {

using SignalWithToken = int (*)(audit_token_t*, int);

SignalWithToken signal_with_token() {
  static const SignalWithToken fn =
      reinterpret_cast<SignalWithToken>(dlsym(RTLD_DEFAULT, "proc_signal_with_audittoken"));
  return fn;
}

// 0 = our process still has the pid (alive or a zombie); ESRCH = reaped (the pid may be reused).
int same_process(const ProcessHandle* h, darwin_backend::ProcUniqIdentifierInfo* u) {
  int err = darwin_backend::uniq_info(h->pid, u, true);
  if (err != 0) return err;
  return u->p_uniqueid == h->uniqueid ? 0 : ESRCH;
}

// After same_process() said 0: whether it has exited. Flavor 17 with arg 0 does not find a
// zombie (ESRCH) while arg 1 does; a zombie has exited.
int exited_now(const ProcessHandle* h, bool* exited) {
  darwin_backend::ProcUniqIdentifierInfo u;
  int err = darwin_backend::uniq_info(h->pid, &u, false);
  *exited = err == ESRCH || (err == 0 && u.p_uniqueid != h->uniqueid);
  return err == ESRCH ? 0 : err;
}

// A failed re-check: ESRCH is "gone"; any other errno is classified, never reported as gone
// (docs/design/style.md habit 2).
Error recheck_error(int err, int32_t pid) {
  if (err == ESRCH) return Error{Failure::kNoSuchProcess, err, "identity check", pid};
  return darwin_backend::classify(err, "proc_pidinfo(PROC_PIDUNIQIDENTIFIERINFO)", pid);
}

Error signal_error(int err, int32_t pid, const char* syscall) {
  if (err == ESRCH) return Error{Failure::kNoSuchProcess, err, syscall, pid};
  if (err == EPERM) return Error{Failure::kAccessDenied, err, syscall, pid};
  if (err == EINVAL) return Error{Failure::kInvalidArgument, err, syscall, pid};
  return Error{Failure::kSyscallFailed, err, syscall, pid};
}

}  // namespace

Error handle_open(int32_t pid, const char* expected_identity, ProcessHandle* out) {
  out->pid = pid;
  out->fd = -1;
  out->exit_fd = -1;
  darwin_backend::ProcUniqIdentifierInfo u;
  if (int err = darwin_backend::uniq_info(pid, &u, true)) {
    if (err == ESRCH) return Error{Failure::kNoSuchProcess, err, "proc_pidinfo(17, zombies)", pid};
    return darwin_backend::classify(err, "proc_pidinfo(PROC_PIDUNIQIDENTIFIERINFO)", pid);
  }
  out->uniqueid = u.p_uniqueid;
  out->identity_kind = IdentityKind::kDarwinUniqueId;
  darwin_backend::format_identity(u.p_uniqueid, out->identity);
  if (expected_identity != nullptr && strcmp(expected_identity, out->identity) != 0) {
    return Error{Failure::kNoSuchProcess, ESRCH, "identity check", pid};
  }
  out->fd = 0;  // "open"; macOS keeps no kernel object per handle until an exit watch starts
  return ok();
}

Error handle_signal(ProcessHandle* h, int sig) {
  if (h->fd < 0) return Error{Failure::kInvalidArgument, EBADF, "handle closed", h->pid};
  SignalWithToken fn = signal_with_token();
  for (int attempt = 0; attempt < 2; attempt++) {
    darwin_backend::ProcUniqIdentifierInfo u;
    if (int err = same_process(h, &u)) return recheck_error(err, h->pid);
    // A zombie still accepts kill(); for the caller the process has exited (as on Linux).
    bool exited = false;
    if (int err = exited_now(h, &exited)) return recheck_error(err, h->pid);
    if (exited) return Error{Failure::kNoSuchProcess, ESRCH, "identity check (exited)", h->pid};
    // psignal_by_audit_token (xnu bsd/kern/proc_info.c) refuses signal 0 with EINVAL: the
    // existence/permission probe goes through kill(), right after the re-check, as on macOS < 14.4.
    if (fn == nullptr || u.p_idversion == 0 || sig == 0) {
      if (kill(h->pid, sig) == 0) return ok();
      return signal_error(errno, h->pid, "kill");
    }
    // The layout libproc itself relies on: val[5] = pid, val[7] = pidversion (§1.5).
    audit_token_t token;
    memset(&token, 0, sizeof token);
    token.val[5] = static_cast<unsigned int>(h->pid);
    token.val[7] = static_cast<unsigned int>(u.p_idversion);
    int rc = fn(&token, sig);  // returns 0 or an errno value, not -1
    if (rc == 0) return ok();
    // ESRCH may only mean the process exec'd (new pidversion) after our re-check: retry once.
    if (rc != ESRCH || attempt == 1) return signal_error(rc, h->pid, "proc_signal_with_audittoken");
  }
  return Error{Failure::kNoSuchProcess, ESRCH, "proc_signal_with_audittoken", h->pid};
}

Error handle_alive(ProcessHandle* h, bool* alive) {
  if (h->fd < 0) return Error{Failure::kInvalidArgument, EBADF, "handle closed", h->pid};
  darwin_backend::ProcUniqIdentifierInfo u;
  int err = same_process(h, &u);
  if (err != 0 && err != ESRCH) return recheck_error(err, h->pid);
  bool exited = err == ESRCH;
  if (!exited) {
    if (int e = exited_now(h, &exited)) return recheck_error(e, h->pid);
  }
  *alive = !exited;  // zombies count as exited
  return ok();
}

Error handle_watch_exit(ProcessHandle* h, bool* already_exited) {
  if (h->fd < 0) return Error{Failure::kInvalidArgument, EBADF, "handle closed", h->pid};
  *already_exited = false;
  if (h->exit_fd >= 0) return ok();
  int kq = kqueue();
  if (kq < 0) return Error{Failure::kSyscallFailed, errno, "kqueue", h->pid};
  struct kevent change;
  EV_SET(&change, h->pid, EVFILT_PROC, EV_ADD | EV_ENABLE | EV_ONESHOT, NOTE_EXIT, 0, nullptr);
  if (kevent(kq, &change, 1, nullptr, 0, nullptr) != 0) {
    int err = errno;
    close(kq);
    if (err == ESRCH) {
      *already_exited = true;
      return ok();
    }
    return Error{Failure::kSyscallFailed, err, "kevent(EVFILT_PROC)", h->pid};
  }
  // Registered on whatever live process has the pid now (filt_procattach: proc_find): if that
  // is not ours, ours was reaped; if it is ours, NOTE_EXIT will report its exit.
  darwin_backend::ProcUniqIdentifierInfo u;
  if (int err = same_process(h, &u)) {
    close(kq);
    if (err != ESRCH) return recheck_error(err, h->pid);
    *already_exited = true;
    return ok();
  }
  h->exit_fd = kq;
  return ok();
}

Error handle_exit_ready(ProcessHandle* h, bool* is_exited) {
  *is_exited = false;
  if (h->exit_fd < 0) return Error{Failure::kInvalidArgument, EBADF, "no exit watch", h->pid};
  struct kevent ev;
  struct timespec zero = {0, 0};
  int n = kevent(h->exit_fd, nullptr, 0, &ev, 1, &zero);
  if (n < 0) return Error{Failure::kSyscallFailed, errno, "kevent", h->pid};
  *is_exited = n > 0 && ev.filter == EVFILT_PROC && (ev.fflags & NOTE_EXIT) != 0;
  return ok();
}

void handle_close(ProcessHandle* h) {
  if (h->exit_fd >= 0) close(h->exit_fd);
  h->exit_fd = -1;
  h->fd = -1;
}

}  // namespace proofs
