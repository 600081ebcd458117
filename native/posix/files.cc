// Shared POSIX facts: flock(2) and lstat(2), identical on Linux and macOS.
#include <errno.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "../proofs.h"

namespace proofs {

namespace {

Error path_error(int err, const char* syscall) {
  // A denied lookup is not a missing file (docs/design/style.md habit 2).
  if (err == EACCES || err == EPERM) return Error{Failure::kAccessDenied, err, syscall, -1};
  if (err == ENAMETOOLONG) return Error{Failure::kInvalidArgument, err, syscall, -1};
  return Error{Failure::kSyscallFailed, err, syscall, -1};
}

FileType file_type(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFSOCK:
      return FileType::kSocket;
    case S_IFREG:
      return FileType::kFile;
    case S_IFDIR:
      return FileType::kDirectory;
    case S_IFLNK:
      return FileType::kSymlink;
    case S_IFIFO:
      return FileType::kFifo;
    case S_IFCHR:
      return FileType::kChar;
    case S_IFBLK:
      return FileType::kBlock;
    default:
      return FileType::kOther;
  }
}

}  // namespace

uint32_t sun_path_max() {
  // bind(2)/connect(2) need the path plus its NUL inside sun_path: 108 bytes on Linux, 104 on
  // macOS (docs/design/kernel-proofs.md §1.2, §4).
  return static_cast<uint32_t>(sizeof(sockaddr_un::sun_path) - 1);
}

Error lstat_facts(const char* path, PathFacts* out) {
  struct stat st;
  if (lstat(path, &st) != 0) return path_error(errno, "lstat");
  out->type = file_type(st.st_mode);
  out->inode = static_cast<uint64_t>(st.st_ino);
  out->device = static_cast<uint64_t>(st.st_dev);
  out->uid = static_cast<uint32_t>(st.st_uid);
  out->mode = static_cast<uint32_t>(st.st_mode & 07777);
  return ok();
}

Error flock_fd(int fd, LockOp op, bool non_blocking, bool* acquired) {
  int how = op == LockOp::kExclusive ? LOCK_EX : op == LockOp::kShared ? LOCK_SH : LOCK_UN;
  if (non_blocking) how |= LOCK_NB;
  for (;;) {
    if (flock(fd, how) == 0) {
      *acquired = true;
      return ok();
    }
    int err = errno;
    if (err == EINTR) continue;  // a signal during a blocking wait: keep waiting
    if (err == EWOULDBLOCK) {
      *acquired = false;
      return ok();
    }
    // EBADF: a closed or never-opened fd is the caller's mistake, not a kernel failure.
    if (err == EBADF) return Error{Failure::kInvalidArgument, err, "flock", -1};
    return Error{Failure::kSyscallFailed, err, "flock", -1};
  }
}

}  // namespace proofs
