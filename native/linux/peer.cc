// Peer credentials of a connected AF_UNIX socket (docs/design/kernel-proofs.md §2.3): SO_PEERCRED
// for pid/uid/gid as captured at connect()/listen(), SO_PEERPIDFD (6.5+) for a pidfd on exactly
// that process, whose pidfs inode is the identity processFacts reports.
#include <errno.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux.h"

namespace proofs {

namespace {

Error fd_error(int err, const char* syscall) {
  // EBADF / ENOTSOCK: the caller passed something that is not an open socket.
  if (err == EBADF || err == ENOTSOCK) return Error{Failure::kInvalidArgument, err, syscall, -1};
  return Error{Failure::kSyscallFailed, err, syscall, -1};
}

}  // namespace

Error peer_credentials(int fd, PeerCredentials* out) {
  ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    return fd_error(errno, "getsockopt(SO_PEERCRED)");
  }
  out->pid = cred.pid;
  out->uid = cred.uid;
  out->gid = cred.gid;
  out->method = PeerMethod::kSoPeerCred;
  out->has_identity = false;
  // pid 0: the peer is not visible in our pid namespace, so no identity can be proven.
  if (cred.pid <= 0) return ok();

  int pidfd = -1;
  len = sizeof pidfd;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) != 0 || pidfd < 0) {
    // ENOPROTOOPT: kernel < 6.5. ENODATA / ESRCH: no peer pid any more. Either way the pid from
    // SO_PEERCRED alone may be stale, so no identity is claimed.
    return ok();
  }
  uint64_t ino = linux_backend::pidfs_inode(pidfd);
  if (ino != 0) {
    out->method = PeerMethod::kSoPeerPidfd;
    out->has_identity = true;
    out->identity_kind = IdentityKind::kLinuxPidfs;
    linux_backend::format_pidfs_identity(ino, out->identity);
  } else {
    // Kernel 6.5-6.8: the pidfd pins the process but its inode is not an identity. Read the
    // start tick, then check that the pinned process was not reaped meanwhile.
    int dir = linux_backend::open_proc_dir(cred.pid);
    linux_backend::StatFields st;
    bool read = dir >= 0 && linux_backend::read_stat(dir, &st) == 0;
    // Signal 0 through the pidfd: 0 or EPERM = still there, ESRCH = reaped (maybe recycled).
    bool pinned = syscall(SYS_pidfd_send_signal, pidfd, 0, nullptr, 0) == 0 || errno == EPERM;
    if (read && pinned) {
      out->method = PeerMethod::kSoPeerPidfd;
      out->has_identity = true;
      out->identity_kind = IdentityKind::kLinuxBootTicks;
      linux_backend::format_ticks_identity(cred.pid, st.starttime, out->identity);
    }
    if (dir >= 0) close(dir);
  }
  close(pidfd);
  return ok();
}

}  // namespace proofs
