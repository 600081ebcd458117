// Socket path -> listening pids on macOS (docs/design/kernel-proofs.md §1.2 "Best proof of who
// listens on path P"). libproc exposes no inode of a bound socket file (fill_socketinfo never fills
// soi_stat, xnu bsd/kern/socket_info.c), so the kernel is asked to resolve the path itself:
// connect() to it (unp_connect looks up the current vnode and its listening socket,
// bsd/kern/uipc_usrreq.c), then LOCAL_PEERTOKEN on our end names the listener's last_pid (sonewconn
// copies it from the listener, bsd/kern/uipc_socket2.c), kept only when that process holds the
// listening socket (darwin.h holder_check). An fd scan then finds every holder of that same kernel
// socket (soi_so), so forked holders are found and a process still listening on an unlinked or
// replaced file of the same name is not. The scan by bound path string remains only where we may
// not connect (no write permission on the socket), reported as listening_sockets -1.
#include <bsm/libbsm.h>
#include <errno.h>
#include <fcntl.h>
#include <libproc.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "darwin.h"

extern "C" int audit_token_to_pidversion(audit_token_t atoken);

namespace proofs {

namespace {

using darwin_backend::UnixSocket;

struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

// What a connect() to the path found.
struct Probe {
  enum Outcome { kRefused, kDenied, kConnected } outcome;
  int32_t pid;         // LOCAL_PEERTOKEN's pid, 0 when the token could not be read
  int32_t pidversion;  // its p_idversion (audit token val[7])
  UnixSocket own;      // our end: conn_so is the listener's new socket, peer the bound name
};

Error probe(const char* path, Fd* sock, Probe* out) {
  out->outcome = Probe::kRefused;
  out->pid = 0;
  out->pidversion = 0;
  sock->fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (sock->fd < 0) return Error{Failure::kSyscallFailed, errno, "socket(AF_UNIX)", -1};
  fcntl(sock->fd, F_SETFD, FD_CLOEXEC);
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  size_t n = strlen(path);  // at most sun_path_max(): checked by the binding
  if (n >= sizeof addr.sun_path)
    return Error{Failure::kInvalidArgument, ENAMETOOLONG, "connect", -1};
  memcpy(addr.sun_path, path, n);
  addr.sun_len = static_cast<unsigned char>(offsetof(struct sockaddr_un, sun_path) + n + 1);
  if (connect(sock->fd, reinterpret_cast<struct sockaddr*>(&addr), addr.sun_len) != 0) {
    int err = errno;
    // ECONNREFUSED: no listening socket on the file's vnode (a stale socket), or its backlog is
    // full (unp_connect: sonewconn fails). ENOENT / ENOTSOCK: the file went away or was replaced
    // since lstat. EPROTOTYPE: a socket of another type is bound there.
    if (err == ECONNREFUSED || err == ENOENT || err == ENOTSOCK || err == EPROTOTYPE) return ok();
    if (err == EACCES || err == EPERM) {
      out->outcome = Probe::kDenied;
      return ok();
    }
    return Error{Failure::kSyscallFailed, err, "connect", -1};
  }
  out->outcome = Probe::kConnected;
  audit_token_t token;
  memset(&token, 0, sizeof token);
  socklen_t len = sizeof token;
  // EINVAL: the listener's last_pid is gone (uipc_ctloutput); then no pid can be proven.
  if (getsockopt(sock->fd, SOL_LOCAL, LOCAL_PEERTOKEN, &token, &len) == 0 && len == sizeof token) {
    out->pid = audit_token_to_pid(token);
    out->pidversion = audit_token_to_pidversion(token);
  }
  return darwin_backend::own_unix_socket(sock->fd, "proc_pidfdinfo(PROC_PIDFDSOCKETINFO)",
                                         &out->own);
}

bool holds_any(int32_t pid, const std::vector<uint64_t>& sockets) {
  bool found = false;
  darwin_backend::each_unix_socket(pid, [&](const UnixSocket& s) {
    found = s.listening && std::find(sockets.begin(), sockets.end(), s.so) != sockets.end();
    return !found;
  });
  return found;
}

// The names a listener may have bound for this file (the fallback without a connect).
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

bool listens_by_name(int32_t pid, const std::vector<std::string>& paths) {
  bool found = false;
  darwin_backend::each_unix_socket(pid, [&](const UnixSocket& s) {
    found = s.listening && std::find(paths.begin(), paths.end(), s.bound) != paths.end();
    return !found;
  });
  return found;
}

void add_listener(SocketFacts* out, int32_t pid) {
  if (out->listener_count == kMaxListeners) {
    out->listeners_truncated = true;
    return;
  }
  out->listeners[out->listener_count++] = pid;
}

// Every pid we may inspect (proc_listallpids), in the kernel's order; with !all_users only those
// whose effective uid is ours (PROC_UID_ONLY matches cr_uid: xnu bsd/kern/proc_info.c
// proc_listpids), so the scan reads no other user's fds.
Error scan_pids(bool all_users, std::vector<pid_t>* pids) {
  const char* call = all_users ? "proc_listallpids" : "proc_listpids(PROC_UID_ONLY)";
  auto list = [&](pid_t* buf, int bytes) {
    return all_users ? proc_listallpids(buf, bytes)
                     : proc_listpids(PROC_UID_ONLY, geteuid(), buf, bytes);
  };
  int count = list(nullptr, 0);
  if (count <= 0) return Error{Failure::kSyscallFailed, errno, call, -1};
  // proc_listallpids counts pids, proc_listpids bytes: size the buffer for the larger reading.
  pids->assign(static_cast<size_t>(count) + 64, 0);
  count = list(pids->data(), static_cast<int>(pids->size() * sizeof(pid_t)));
  if (count <= 0) return Error{Failure::kSyscallFailed, errno, call, -1};
  size_t n = all_users ? static_cast<size_t>(count) : static_cast<size_t>(count) / sizeof(pid_t);
  pids->resize(std::min(n, pids->size()));
  return ok();
}

}  // namespace

Error socket_facts(const char* path, const char* dir, int32_t pid, bool all_users,
                   SocketFacts* out) {
  Error e = socket_file_facts(path, dir, out);
  if (failed(e) || out->file.type != FileType::kSocket) return e;
  Fd sock(-1);
  Probe p;
  e = probe(path, &sock, &p);
  if (failed(e)) return e;
  if (p.outcome == Probe::kRefused) return ok();  // listening_sockets 0: nothing listens there

  std::vector<pid_t> pids;
  if (pid > 0) {
    pids.push_back(pid);
  } else {
    e = scan_pids(all_users, &pids);
    if (failed(e)) return e;
  }
  if (p.outcome == Probe::kDenied) {
    // We may not connect: the weaker match by the name the listener bound
    // (docs/design/kernel-proofs.md §1.2 "Path semantics"), and no count of the kernel's listeners.
    out->listening_sockets = -1;
    std::vector<std::string> names = candidate_paths(path);
    for (pid_t candidate : pids) {
      if (candidate > 0 && listens_by_name(candidate, names)) add_listener(out, candidate);
    }
    return ok();
  }
  // Connected: exactly one listening socket is bound to this vnode.
  out->listening_sockets = 1;
  darwin_backend::Holder holder;
  e = darwin_backend::holder_check(p.pid, p.pidversion, p.own.conn_so, p.own.peer, &holder);
  if (failed(e) || !holder.holds || holder.listeners.empty()) return e;
  for (pid_t candidate : pids) {
    if (candidate <= 0) continue;
    // The token's process was just checked; every other one by its fds.
    if (candidate == p.pid || holds_any(candidate, holder.listeners)) add_listener(out, candidate);
    if (out->listeners_truncated) break;
  }
  return ok();
}

Error peer_socket_file(int fd, PeerSocketFile* out) {
  (void)fd;
  (void)out;
  // fill_socketinfo never writes soi_stat and fstat() on a socket returns a made-up unp_ino, so
  // the bound file of a peer cannot be named on macOS (docs/design/kernel-proofs.md §1.2).
  return Error{Failure::kUnsupported, 0, "peer socket file (no bound inode in libproc)", -1};
}

}  // namespace proofs
