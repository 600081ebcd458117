// Socket path -> bound listening sockets -> holder pids (kernel-proofs.md §2.4), and the file
// behind the peer of a connected socket (reliability-plan.md §1.2 "peer socket's VFS").
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

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
template <typename Visit>
void each_entry(int dir_fd, Visit visit) {
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
  }
}

// 1 = the process behind /proc/<pid_name> holds one of the inodes, 0 = not, -1 = not readable.
int holds_inode(int proc, const char* pid_name, const uint64_t* inodes, size_t n) {
  char path[48];
  size_t len = strlen(pid_name);
  if (len > 20) return 0;
  memcpy(path, pid_name, len);
  memcpy(path + len, "/fd", 4);
  int fd_dir = openat(proc, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_dir < 0) return errno == EACCES || errno == EPERM ? -1 : 0;
  int found = 0;
  each_entry(fd_dir, [&](const char* name) {
    if (name[0] < '0' || name[0] > '9') return true;
    char link[64];
    ssize_t n_link = readlinkat(fd_dir, name, link, sizeof link - 1);
    if (n_link < 0) {
      if (errno == EACCES || errno == EPERM) {
        found = -1;
        return false;
      }
      return true;  // the fd was closed while we looked
    }
    link[n_link] = '\0';
    uint64_t ino = socket_link_inode(link, n_link);
    if (ino != 0 && contains(inodes, n, ino)) {
      found = 1;
      return false;
    }
    return true;
  });
  close(fd_dir);
  return found;
}

}  // namespace

size_t socket_holders(const uint64_t* inodes, size_t n, int32_t* pids, size_t cap, bool* truncated,
                      size_t* denied) {
  *truncated = false;
  *denied = 0;
  if (n == 0) return 0;
  int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc < 0) return 0;
  // Only tgid directories are listed in /proc; threads share their leader's fd table.
  std::vector<int32_t> all;
  each_entry(proc, [&](const char* name) {
    if (name[0] >= '1' && name[0] <= '9') {
      all.push_back(static_cast<int32_t>(strtol(name, nullptr, 10)));
    }
    return true;
  });
  // Each fd link costs microseconds (getdents on /proc/<pid>/fd instantiates a dentry per fd):
  // with many processes and a second CPU, a helper thread scans the second half. Measured on the
  // 2-CPU CI VM with 1000 extra processes: 23 ms -> 13-15 ms.
  struct Part {
    std::vector<int32_t> found;
    size_t denied = 0;
  };
  auto scan = [&](size_t from, size_t to, Part* part) {
    char name[16];
    for (size_t i = from; i < to; i++) {
      snprintf(name, sizeof name, "%d", all[i]);
      int held = holds_inode(proc, name, inodes, n);
      if (held < 0) part->denied++;
      if (held > 0) part->found.push_back(all[i]);
    }
  };
  Part parts[2];
  size_t half = all.size();
  if (all.size() >= 256 && std::thread::hardware_concurrency() >= 2) half = all.size() / 2;
  std::thread helper;
  if (half < all.size()) helper = std::thread(scan, half, all.size(), &parts[1]);
  scan(0, half, &parts[0]);
  if (helper.joinable()) helper.join();
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

}  // namespace linux_backend

Error socket_facts(const char* path, const char* dir, SocketFacts* out) {
  out->listener_count = 0;
  out->listeners_truncated = false;
  out->listening_sockets = 0;
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
  uint64_t inodes[64];
  size_t n = 0;
  e = linux_backend::listening_socket_inodes(out->file.device, out->file.inode, inodes, 64, &n);
  if (failed(e)) return e;
  // sock_diag lists every user's sockets: a listener we cannot attribute to a pid is still seen.
  out->listening_sockets = static_cast<int32_t>(n);
  size_t denied = 0;
  out->listener_count = linux_backend::socket_holders(inodes, n, out->listeners, kMaxListeners,
                                                      &out->listeners_truncated, &denied);
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
