// Socket path -> bound listening sockets -> holder pids (docs/design/kernel-proofs.md §2.4), and
// the file behind the peer of a connected socket (docs/design/reliability-plan.md §1.2 "peer
// socket's VFS").
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <system_error>
#include <thread>
#include <vector>

#include "linux.h"

namespace proofs {

namespace linux_backend {

namespace {

bool contains(const uint64_t* v, size_t n, uint64_t x) {
  for (size_t i = 0; i < n; i++) {
    if (v[i] == x) return true;
  }
  return false;
}

// "socket:[12345]" -> 12345, or 0 for anything else.
uint64_t socket_link_inode(const char* link, ssize_t len) {
  static const char kPrefix[] = "socket:[";
  constexpr ssize_t kPrefixLen = sizeof kPrefix - 1;
  if (len <= kPrefixLen + 1 || memcmp(link, kPrefix, kPrefixLen) != 0) return 0;
  return strtoull(link + kPrefixLen, nullptr, 10);
}

// getdents64 on a raw fd: opendir()/readdir() would add an fstat and two fcntl calls per
// directory, which is most of the cost of scanning thousands of /proc/<pid>/fd directories.
struct Dirent64 {
  uint64_t d_ino;
  int64_t d_off;
  uint16_t d_reclen;
  uint8_t d_type;
  char d_name[1];
};

// Reads until getdents64 returns 0. A short buffer does not mean the directory is exhausted:
// filldir64 (fs/readdir.c) stops filling when a signal is pending and returns what it has, so
// under a signal load (a profiler's SIGPROF) /proc came back truncated and listeners went missing.
// Only a thread that blocks every signal (the scan's helper threads) may take a read that left
// room for another entry as the end, which saves one getdents64 per directory.
constexpr long kMaxDirent = 288;  // offsetof(d_name) + NAME_MAX + NUL, 8-aligned

template <typename Visit>
void each_entry(int dir_fd, Visit visit, bool short_read_ends = false) {
  alignas(8) char buf[8192];
  for (;;) {
    long n = syscall(SYS_getdents64, dir_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    for (long off = 0; off < n;) {
      const Dirent64* e = reinterpret_cast<const Dirent64*>(buf + off);
      off += e->d_reclen;
      if (!visit(e->d_name)) return;
    }
    if (short_read_ends && n + kMaxDirent <= static_cast<long>(sizeof buf)) return;
  }
}

// One fd link: 1 = a socket with one of the inodes, 0 = something else or closed meanwhile,
// -1 = not readable to us.
int fd_holds(int fd_dir, const char* name, const uint64_t* inodes, size_t n) {
  char link[64];
  ssize_t n_link = readlinkat(fd_dir, name, link, sizeof link - 1);
  if (n_link < 0) return errno == EACCES || errno == EPERM ? -1 : 0;
  link[n_link] = '\0';
  uint64_t ino = socket_link_inode(link, n_link);
  return ino != 0 && contains(inodes, n, ino) ? 1 : 0;
}

// 1 = the fd directory (an open /proc/<pid>/fd) has an fd on one of the inodes, 0 = not,
// -1 = an fd link was not readable.
int holds_inode_in(int fd_dir, const uint64_t* inodes, size_t n, bool short_read_ends) {
  int found = 0;
  each_entry(
      fd_dir,
      [&](const char* name) {
        if (name[0] < '0' || name[0] > '9') return true;
        found = fd_holds(fd_dir, name, inodes, n);
        return found == 0;
      },
      short_read_ends);
  return found;
}

// The same for /proc/<pid_name>/fd under an open /proc; -1 when the fd table is not readable.
int holds_inode(int proc, const char* pid_name, const uint64_t* inodes, size_t n,
                bool short_read_ends) {
  char path[48];
  size_t len = strlen(pid_name);
  if (len > 20) return 0;
  memcpy(path, pid_name, len);
  memcpy(path + len, "/fd", 4);
  int fd_dir = openat(proc, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_dir < 0) return errno == EACCES || errno == EPERM ? -1 : 0;
  int found = holds_inode_in(fd_dir, inodes, n, short_read_ends);
  close(fd_dir);
  return found;
}

// For one known process: the fds of each batch newest first. A server's runtime opens its own fds
// (epoll, eventfds, pipes) before it listens, and the accepted connections come after: from the
// top, the listening socket is a few links away instead of most of the table. is_it(inode) asks
// about one socket fd: 1 = it is the one, 0 = not, -1 = could not tell (an error in *why).
// Returns 1 = found, 0 = not held, -1 = an fd link was not readable, -2 = is_it failed.
template <typename IsIt>
int holds_newest_first(int fd_dir, IsIt is_it) {
  alignas(8) char buf[8192];
  int found = 0;
  for (;;) {
    long len = syscall(SYS_getdents64, fd_dir, buf, sizeof buf);
    if (len < 0 && errno == EINTR) continue;
    if (len <= 0) return found;
    const Dirent64* batch[sizeof buf / 24];
    size_t count = 0;
    for (long off = 0; off < len && count < sizeof batch / sizeof batch[0];) {
      const Dirent64* e = reinterpret_cast<const Dirent64*>(buf + off);
      off += e->d_reclen;
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9') batch[count++] = e;
    }
    while (count > 0) {
      char link[64];
      ssize_t n_link = readlinkat(fd_dir, batch[--count]->d_name, link, sizeof link - 1);
      if (n_link < 0) {
        if (errno == EACCES || errno == EPERM) found = -1;
        continue;
      }
      link[n_link] = '\0';
      uint64_t ino = socket_link_inode(link, n_link);
      if (ino == 0) continue;
      int it = is_it(ino);
      if (it != 0) return it > 0 ? 1 : -2;
    }
  }
}

}  // namespace

size_t socket_holders(const uint64_t* inodes, size_t n, int64_t only_uid, int32_t* pids, size_t cap,
                      bool* truncated, size_t* denied) {
  *truncated = false;
  *denied = 0;
  if (n == 0) return 0;
  int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc < 0) return 0;
  // Only tgid directories are listed in /proc; threads share their leader's fd table.
  std::vector<int32_t> all;
  all.reserve(1024);
  each_entry(proc, [&](const char* name) {
    if (name[0] >= '1' && name[0] <= '9') {
      all.push_back(static_cast<int32_t>(strtol(name, nullptr, 10)));
    }
    return true;
  });
  // Each fd link costs microseconds (getdents on /proc/<pid>/fd instantiates a dentry per fd).
  // With many processes and a second CPU, two helper threads that block every signal share the
  // work in small chunks (one stalled thread does not hold the other back), and since no signal
  // can cut their getdents64 short, a read with room to spare ends a directory.
  struct Part {
    std::vector<int32_t> found;
    size_t denied = 0;
  };
  std::atomic<size_t> next{0};
  constexpr size_t kChunk = 32;
  auto scan = [&](Part* part, bool short_read_ends) {
    char name[16];
    for (;;) {
      size_t from = next.fetch_add(kChunk, std::memory_order_relaxed);
      if (from >= all.size()) return;
      size_t to = from + kChunk < all.size() ? from + kChunk : all.size();
      for (size_t i = from; i < to; i++) {
        snprintf(name, sizeof name, "%d", all[i]);
        if (only_uid >= 0) {
          // One stat of /proc/<pid> (owned by the task's euid) instead of an open, a getdents and
          // a readlink per fd: another user's process is skipped at the cost of one syscall.
          struct stat st;
          if (fstatat(proc, name, &st, 0) != 0 || st.st_uid != static_cast<uid_t>(only_uid)) {
            continue;
          }
        }
        int held = holds_inode(proc, name, inodes, n, short_read_ends);
        if (held < 0) part->denied++;
        if (held > 0) part->found.push_back(all[i]);
      }
    }
  };
  Part parts[2];
  if (all.size() >= 256 && std::thread::hardware_concurrency() >= 2) {
    auto helper = [&](Part* part) {
      sigset_t every;
      sigfillset(&every);
      pthread_sigmask(SIG_BLOCK, &every, nullptr);
      scan(part, true);
    };
    // A thread that cannot be created (EAGAIN under a process limit) leaves its share to the
    // other, or to this thread: std::system_error must not escape into Node-API.
    std::thread threads[2];
    for (int i = 0; i < 2; i++) {
      try {
        threads[i] = std::thread(helper, &parts[i]);
      } catch (const std::system_error&) {
        break;
      }
    }
    if (!threads[0].joinable()) scan(&parts[0], false);
    for (std::thread& t : threads) {
      if (t.joinable()) t.join();
    }
  } else {
    scan(&parts[0], false);
  }
  close(proc);
  size_t count = 0;
  for (const Part& part : parts) {
    *denied += part.denied;
    for (int32_t pid : part.found) {
      if (count == cap) {
        *truncated = true;
        return count;
      }
      pids[count++] = pid;
    }
  }
  return count;
}

Error pid_listens_on(int32_t pid, uint64_t file_dev, uint64_t file_ino, bool* held) {
  *held = false;
  char path[32];
  snprintf(path, sizeof path, "/proc/%d/fd", pid);
  int fd_dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_dir < 0) {
    int err = errno;
    // A process that is gone holds nothing: a true negative, not a failure to look.
    if (err == ENOENT || err == ESRCH) return ok();
    return classify(err, "open(/proc/<pid>/fd)", pid, -1);
  }
  int nl = open_sock_diag();
  if (nl < 0) {
    int err = errno;
    close(fd_dir);
    return Error{Failure::kUnsupported, err, "socket(NETLINK_SOCK_DIAG)", -1};
  }
  Error why = ok();
  int found = holds_newest_first(fd_dir, [&](uint64_t ino) {
    bool yes = false;
    why = listens_on_file(nl, ino, file_dev, file_ino, &yes);
    if (failed(why)) return -1;
    return yes ? 1 : 0;
  });
  close(nl);
  close(fd_dir);
  if (found == -2) return why;
  // An unreadable fd table is not a negative proof (docs/design/style.md habit 2).
  if (found < 0) return Error{Failure::kAccessDenied, EACCES, "readlinkat(/proc/<pid>/fd)", pid};
  *held = found > 0;
  return ok();
}

}  // namespace linux_backend

Error socket_facts(const char* path, const char* dir, int32_t pid, bool all_users,
                   SocketFacts* out) {
  Error e = socket_file_facts(path, dir, out);
  if (failed(e) || out->file.type != FileType::kSocket) return e;
  Error by_pid = ok();
  if (pid > 0) {
    // The proof path asks about this process's own socket fds, one exact sock_diag lookup each:
    // its cost does not grow with the machine's sockets, as the dump below does. bind() makes a
    // fresh inode, so the socket found is the only one bound to this file.
    bool held = false;
    by_pid = linux_backend::pid_listens_on(pid, out->file.device, out->file.inode, &held);
    if (!failed(by_pid) && held) {
      out->listening_sockets = 1;
      out->listeners[out->listener_count++] = pid;
      return ok();
    }
  }
  // Not held by the pid (or its table unreadable): the dump says whether anything listens at all.
  uint64_t inodes[64];
  size_t n = 0;
  e = linux_backend::listening_socket_inodes(out->file.device, out->file.inode, inodes, 64, &n);
  if (failed(e)) return e;
  // sock_diag lists every user's sockets: a listener we cannot attribute to a pid is still seen.
  out->listening_sockets = static_cast<int32_t>(n);
  if (n == 0) return ok();
  if (pid > 0) return by_pid;
  size_t denied = 0;
  const int64_t only_uid = all_users ? -1 : static_cast<int64_t>(geteuid());
  out->listener_count = linux_backend::socket_holders(
      inodes, n, only_uid, out->listeners, kMaxListeners, &out->listeners_truncated, &denied);
  return ok();
}

Error peer_socket_file(int fd, PeerSocketFile* out) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    return Error{err == EBADF ? Failure::kInvalidArgument : Failure::kSyscallFailed, err, "fstat",
                 -1};
  }
  if (!S_ISSOCK(st.st_mode)) return Error{Failure::kInvalidArgument, ENOTSOCK, "fstat", -1};
  out->own_socket_inode = static_cast<uint64_t>(st.st_ino);
  Error e = linux_backend::peer_of(out->own_socket_inode, &out->peer_socket_inode);
  if (failed(e)) return e;
  // The accepted socket shares the listener's bound path (unix_stream_connect copies it), so
  // its VFS attribute names the file the client connected through.
  return linux_backend::bound_file_of(out->peer_socket_inode, &out->has_file, &out->device,
                                      &out->inode32);
}

}  // namespace proofs
