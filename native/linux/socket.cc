// Socket path -> bound listening sockets -> holder pids (kernel-proofs.md §2.4), and the file
// behind the peer of a connected socket (reliability-plan.md §1.2 "peer socket's VFS").
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

// Whether the process behind an open /proc directory holds one of the inodes.
int holds_inode(int proc, const char* pid_name, const uint64_t* inodes, size_t n) {
  char path[48];
  size_t len = strlen(pid_name);
  if (len > 20) return 0;
  memcpy(path, pid_name, len);
  memcpy(path + len, "/fd", 4);
  int fd_dir = openat(proc, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_dir < 0) return errno == EACCES || errno == EPERM ? -1 : 0;
  DIR* d = fdopendir(fd_dir);
  if (d == nullptr) {
    close(fd_dir);
    return 0;
  }
  int found = 0;
  while (struct dirent* e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char link[64];
    ssize_t n_link = readlinkat(dirfd(d), e->d_name, link, sizeof link - 1);
    if (n_link < 0) {
      if (errno == EACCES || errno == EPERM) {
        found = -1;
        break;
      }
      continue;  // the fd was closed while we looked
    }
    link[n_link] = '\0';
    uint64_t ino = socket_link_inode(link, n_link);
    if (ino != 0 && contains(inodes, n, ino)) {
      found = 1;
      break;
    }
  }
  closedir(d);
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
  DIR* d = fdopendir(proc);
  if (d == nullptr) {
    close(proc);
    return 0;
  }
  size_t count = 0;
  // Only tgid directories are listed in /proc; threads share their leader's fd table.
  while (struct dirent* e = readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    int held = holds_inode(dirfd(d), e->d_name, inodes, n);
    if (held < 0) (*denied)++;
    if (held <= 0) continue;
    if (count == cap) {
      *truncated = true;
      break;
    }
    pids[count++] = static_cast<int32_t>(strtol(e->d_name, nullptr, 10));
  }
  closedir(d);
  return count;
}

}  // namespace linux_backend

Error socket_facts(const char* path, const char* dir, SocketFacts* out) {
  out->listener_count = 0;
  out->listeners_truncated = false;
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
