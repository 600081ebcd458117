// AF_UNIX sockets through libproc, and the holder check that ties a pid to the other end of one of
// our connections (darwin.h; docs/design/kernel-proofs.md §1.2, §1.3).
#include <errno.h>
#include <libproc.h>
#include <string.h>
#include <sys/proc_info.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "darwin.h"

// docs/design/kernel-proofs.md §4; xnu bsd/sys/proc_info.h.
static_assert(sizeof(struct socket_fdinfo) == 792, "socket_fdinfo is 792 bytes");
static_assert(offsetof(struct socket_fdinfo, psi.soi_so) == 160, "soi_so@160");
static_assert(offsetof(struct socket_fdinfo, psi.soi_options) == 188, "soi_options@188");
static_assert(offsetof(struct socket_fdinfo, psi.soi_kind) == 256, "soi_kind@256");
static_assert(offsetof(struct socket_fdinfo, psi.soi_proto.pri_un.unsi_conn_so) == 264,
              "unsi_conn_so@264");
static_assert(offsetof(struct socket_fdinfo, psi.soi_proto.pri_un.unsi_addr) == 280,
              "unsi_addr@280");
static_assert(offsetof(struct socket_fdinfo, psi.soi_proto.pri_un.unsi_caddr) == 535,
              "unsi_caddr@535");
static_assert(sizeof(struct un_sockinfo) == 528, "un_sockinfo is 528 bytes");
static_assert(sizeof(struct proc_fdinfo) == 8, "proc_fdinfo is 8 bytes");
static_assert(PROC_PIDLISTFD_SIZE == 8, "PROC_PIDLISTFD_SIZE");
static_assert(sizeof(struct sockaddr_un) == 106, "sockaddr_un is 106 bytes");

namespace proofs::darwin_backend {

namespace {

// unp_bind accepts sun_len up to 255 (a path longer than the 104-byte sun_path), and
// fill_socketinfo copies sun_len bytes into the SOCK_MAXADDRLEN union (xnu bsd/kern/uipc_usrreq.c,
// bsd/kern/socket_info.c): the name is read up to sun_len, never past the union.
template <typename Addr>
std::string name_of(const Addr& addr) {
  constexpr size_t kPathAt = offsetof(struct sockaddr_un, sun_path);
  size_t cap = addr.ua_sun.sun_len > kPathAt ? addr.ua_sun.sun_len - kPathAt : 0;
  if (cap > sizeof addr.ua_dummy - kPathAt) cap = sizeof addr.ua_dummy - kPathAt;
  const char* bound = addr.ua_dummy + kPathAt;
  return std::string(bound, strnlen(bound, cap));
}

}  // namespace

int unix_socket(int32_t pid, int fd, UnixSocket* out) {
  struct socket_fdinfo si;
  errno = 0;
  int got = proc_pidfdinfo(pid, fd, PROC_PIDFDSOCKETINFO, &si, sizeof si);
  // A short result is a failure too (ABI mismatch), as for every proc_* call (libproc.cc).
  if (got != static_cast<int>(sizeof si)) return errno != 0 ? errno : EIO;
  if (si.psi.soi_family != AF_UNIX || si.psi.soi_kind != SOCKINFO_UN) return EOPNOTSUPP;
  const struct un_sockinfo& un = si.psi.soi_proto.pri_un;
  out->so = si.psi.soi_so;
  out->conn_so = un.unsi_conn_so;
  out->listening = (si.psi.soi_options & SO_ACCEPTCONN) != 0;
  out->queued = si.psi.soi_qlen + si.psi.soi_incqlen;
  out->bound = name_of(un.unsi_addr);
  out->peer = name_of(un.unsi_caddr);
  return 0;
}

int each_unix_socket(int32_t pid, const std::function<bool(const UnixSocket&)>& visit) {
  errno = 0;
  int bytes = proc_pidinfo(pid, PROC_PIDLISTFDS, 0, nullptr, 0);
  if (bytes <= 0) return errno != 0 ? errno : ESRCH;
  // Headroom for fds opened between the two calls (psutil adds 32 entries).
  std::vector<proc_fdinfo> fds(static_cast<size_t>(bytes) / PROC_PIDLISTFD_SIZE + 32);
  errno = 0;
  bytes = proc_pidinfo(pid, PROC_PIDLISTFDS, 0, fds.data(),
                       static_cast<int>(fds.size() * PROC_PIDLISTFD_SIZE));
  if (bytes <= 0) return errno != 0 ? errno : ESRCH;
  size_t n = static_cast<size_t>(bytes) / PROC_PIDLISTFD_SIZE;
  UnixSocket s;
  for (size_t i = 0; i < n; i++) {
    if (fds[i].proc_fdtype != PROX_FDTYPE_SOCKET) continue;
    // EBADF (closed meanwhile), EOPNOTSUPP (not AF_UNIX, or psutil #1512) are skipped.
    if (unix_socket(pid, fds[i].proc_fd, &s) != 0) continue;
    if (!visit(s)) break;
  }
  return 0;
}

Error holder_check(int32_t pid, int32_t pidversion, uint64_t peer_so, const std::string& peer_addr,
                   Holder* out) {
  out->holds = false;
  out->listeners.clear();
  ProcUniqIdentifierInfo u;
  if (pid <= 0 || pidversion == 0) return ok();
  if (uniq_info(pid, &u) != 0 || u.p_idversion != pidversion) return ok();
  bool accepted = false;
  std::vector<uint64_t> waiting;
  std::vector<uint64_t> bound;
  int err = each_unix_socket(pid, [&](const UnixSocket& s) {
    if (s.so == peer_so) accepted = true;
    if (s.listening && !peer_addr.empty() && s.bound == peer_addr) {
      bound.push_back(s.so);
      if (s.queued > 0) waiting.push_back(s.so);
    }
    return true;
  });
  // EPERM: another user's fd table (proc_security_policy, bsd/kern/proc_info.c); ESRCH: gone.
  if (err != 0) return ok();
  // The same process from before the fd scan to after it (p_idversion changes on exec too).
  if (uniq_info(pid, &u) != 0 || u.p_idversion != pidversion) return ok();
  if (!waiting.empty()) {
    out->holds = true;
    out->listeners = waiting;
  } else if (accepted) {
    out->holds = true;
    out->listeners = bound;
  }
  return ok();
}

Error own_unix_socket(int fd, const char* syscall, UnixSocket* out) {
  int err = unix_socket(getpid(), fd, out);
  if (err == 0) return ok();
  if (err == EBADF || err == ENOTSOCK || err == EOPNOTSUPP) {
    return Error{Failure::kInvalidArgument, err, syscall, -1};
  }
  return Error{Failure::kSyscallFailed, err, syscall, -1};
}

}  // namespace proofs::darwin_backend
