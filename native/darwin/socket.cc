// Socket path -> listening pids on macOS (kernel-proofs.md §1.2): PROC_PIDLISTFDS for every pid
// we may inspect, PROC_PIDFDSOCKETINFO for each socket fd, kept when it is an AF_UNIX listener
// (SO_ACCEPTCONN) bound to the path. libproc exposes no inode of the bound file, so the match is
// by path string: exactly as bound, or with /private resolved (/tmp -> /private/tmp).
#include <errno.h>
#include <libproc.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/proc_info.h>
#include <sys/socket.h>
#include <sys/ucred.h>
#include <sys/un.h>

#include <string>
#include <vector>

#include "darwin.h"

// kernel-proofs.md §4.
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
static_assert(sizeof(struct xucred) == 76, "xucred is 76 bytes");
static_assert(sizeof(struct sockaddr_un) == 106, "sockaddr_un is 106 bytes");

namespace proofs {

namespace {

// The names a listener may have bound for this file.
std::vector<std::string> candidate_paths(const char* path) {
  std::vector<std::string> out{path};
  char real[PATH_MAX];
  if (realpath(path, real) != nullptr && out[0] != real) out.emplace_back(real);
  static const char kPrivate[] = "/private";
  for (size_t i = 0, n = out.size(); i < n; i++) {
    const std::string& p = out[i];
    if (p.compare(0, sizeof kPrivate - 1, kPrivate) == 0 && p.size() > sizeof kPrivate - 1) {
      out.push_back(p.substr(sizeof kPrivate - 1));
    }
  }
  return out;
}

bool listens_on(int32_t pid, const std::vector<std::string>& paths) {
  errno = 0;
  int bytes = proc_pidinfo(pid, PROC_PIDLISTFDS, 0, nullptr, 0);
  if (bytes <= 0) return false;  // EPERM (another uid) or gone: not visible to us
  // Headroom for fds opened between the two calls (psutil adds 32 entries).
  std::vector<proc_fdinfo> fds(static_cast<size_t>(bytes) / PROC_PIDLISTFD_SIZE + 32);
  bytes = proc_pidinfo(pid, PROC_PIDLISTFDS, 0, fds.data(),
                       static_cast<int>(fds.size() * PROC_PIDLISTFD_SIZE));
  if (bytes <= 0) return false;
  size_t n = static_cast<size_t>(bytes) / PROC_PIDLISTFD_SIZE;
  for (size_t i = 0; i < n; i++) {
    if (fds[i].proc_fdtype != PROX_FDTYPE_SOCKET) continue;
    struct socket_fdinfo si;
    int got = proc_pidfdinfo(pid, fds[i].proc_fd, PROC_PIDFDSOCKETINFO, &si, sizeof si);
    // EBADF (closed meanwhile) and EOPNOTSUPP (psutil #1512) are skipped like psutil does.
    if (got != static_cast<int>(sizeof si)) continue;
    if (si.psi.soi_family != AF_UNIX || si.psi.soi_kind != SOCKINFO_UN) continue;
    if ((si.psi.soi_options & SO_ACCEPTCONN) == 0) continue;
    // unp_bind accepts sun_len up to 255 (a path longer than the 104-byte sun_path), and
    // fill_socketinfo copies sun_len bytes into the SOCK_MAXADDRLEN union: read up to sun_len.
    const auto& addr = si.psi.soi_proto.pri_un.unsi_addr;
    constexpr size_t kPathAt = offsetof(struct sockaddr_un, sun_path);
    size_t cap = addr.ua_sun.sun_len > kPathAt ? addr.ua_sun.sun_len - kPathAt : 0;
    if (cap > sizeof addr.ua_dummy - kPathAt) cap = sizeof addr.ua_dummy - kPathAt;
    const char* bound = addr.ua_dummy + kPathAt;
    std::string name(bound, strnlen(bound, cap));
    for (const std::string& p : paths) {
      if (p == name) return true;
    }
  }
  return false;
}

}  // namespace

Error socket_facts(const char* path, const char* dir, SocketFacts* out) {
  out->listener_count = 0;
  out->listeners_truncated = false;
  // proc_pidfdinfo only opens processes we may inspect: another user's listener is invisible.
  out->listening_sockets = -1;
  Error e = lstat_facts(dir, &out->dir);
  if (failed(e)) {
    e.syscall = "lstat(dir)";
    return e;
  }
  e = lstat_facts(path, &out->file);
  if (failed(e)) {
    e.syscall = "lstat(path)";
    return e;
  }
  if (out->file.type != FileType::kSocket) return ok();
  std::vector<std::string> paths = candidate_paths(path);
  int count = proc_listallpids(nullptr, 0);
  if (count <= 0) return Error{Failure::kSyscallFailed, errno, "proc_listallpids", -1};
  std::vector<pid_t> pids(static_cast<size_t>(count) + 64);
  count = proc_listallpids(pids.data(), static_cast<int>(pids.size() * sizeof(pid_t)));
  if (count <= 0) return Error{Failure::kSyscallFailed, errno, "proc_listallpids", -1};
  for (int i = 0; i < count && i < static_cast<int>(pids.size()); i++) {
    if (pids[i] <= 0 || !listens_on(pids[i], paths)) continue;
    if (out->listener_count == kMaxListeners) {
      out->listeners_truncated = true;
      break;
    }
    out->listeners[out->listener_count++] = pids[i];
  }
  return ok();
}

Error peer_socket_file(int fd, PeerSocketFile* out) {
  (void)fd;
  (void)out;
  // fill_socketinfo never writes soi_stat and fstat() on a socket returns a made-up unp_ino, so
  // the bound file of a peer cannot be named on macOS (kernel-proofs.md §1.2).
  return Error{Failure::kUnsupported, 0, "peer socket file (no bound inode in libproc)", -1};
}

}  // namespace proofs
