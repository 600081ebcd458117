// pidfd / pidfs identity and the one place Linux failures are classified
// (docs/design/kernel-proofs.md §2.2, §3; systemd src/basic/pidfd-util.c and pidref.c do the same
// checks).
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include "linux.h"

namespace proofs::linux_backend {

namespace {

// 0 = not checked yet, 1 = pidfs, 2 = not pidfs. Whether pidfds live on pidfs is a property of
// the running kernel, so one fstatfs() per process is enough.
std::atomic<int> pidfs_state{0};

bool is_gone(int32_t pid, int proc_dir) {
  if (proc_dir >= 0) {
    // A /proc/<pid> dirfd is bound to its struct pid: once the process is reaped, every openat()
    // through it fails with ESRCH, even when the number is reused (docs/design/kernel-proofs.md
    // §2.5).
    int fd = openat(proc_dir, "stat", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      close(fd);
      return false;
    }
    return errno == ESRCH || errno == ENOENT;
  }
  char path[32];
  snprintf(path, sizeof path, "/proc/%d", pid);
  struct stat st;
  if (stat(path, &st) == 0) return false;
  return errno == ENOENT || errno == ESRCH;
}

bool is_zombie(int32_t pid, int proc_dir) {
  int dir = proc_dir >= 0 ? proc_dir : open_proc_dir(pid);
  if (dir < 0) return false;
  StatFields f;
  int err = read_stat(dir, &f);
  if (dir != proc_dir) close(dir);
  // 'Z' = zombie, 'X' = dead (being reaped): both have exited (fs/proc/array.c task_state_array).
  return err == 0 && (f.state == 'Z' || f.state == 'X');
}

}  // namespace

Error unsupported(const char* syscall, int err) {
  return Error{Failure::kUnsupported, err, syscall, -1};
}

Error classify(int err, const char* syscall, int32_t pid, int proc_dir) {
  // 1. errno. Denied is never "gone": an unreadable proof is not a negative proof.
  if (err == EACCES || err == EPERM) return Error{Failure::kAccessDenied, err, syscall, pid};
  if (err == ENOSYS) return Error{Failure::kUnsupported, err, syscall, pid};
  if (pid > 0) {
    // 2. Is the pid gone? 3. Is it a zombie?
    if (is_gone(pid, proc_dir)) return Error{Failure::kNoSuchProcess, err, syscall, pid};
    if (is_zombie(pid, proc_dir)) return Error{Failure::kZombie, err, syscall, pid};
  }
  return Error{Failure::kSyscallFailed, err, syscall, pid};
}

const char* boot_id() {
  static const struct BootId {
    char value[kIdentityCapacity];
    BootId() : value{} {
      int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
      if (fd < 0) return;
      ssize_t n = read(fd, value, sizeof value - 1);
      close(fd);
      if (n <= 0) {
        value[0] = '\0';
        return;
      }
      value[n] = '\0';
      char* nl = strchr(value, '\n');
      if (nl != nullptr) *nl = '\0';
    }
  } id;
  return id.value;
}

uint64_t pidfs_inode(int pidfd) {
  int state = pidfs_state.load(std::memory_order_relaxed);
  if (state == 0) {
    struct statfs sfs;
    // Before 6.9 every pidfd shared one anon_inode, so st_ino identified nothing: trust the
    // inode only on pidfs (docs/design/kernel-proofs.md §2.2 "Checking for pidfs").
    state =
        (fstatfs(pidfd, &sfs) == 0 && static_cast<uint32_t>(sfs.f_type) == PID_FS_MAGIC) ? 1 : 2;
    pidfs_state.store(state, std::memory_order_relaxed);
  }
  if (state != 1) return 0;
  struct stat st;
  if (fstat(pidfd, &st) != 0) return 0;
  return static_cast<uint64_t>(st.st_ino);
}

int open_pidfd(int32_t pid, uint64_t* inode) {
  int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return -1;
  // pidfd_open sets O_CLOEXEC itself (pidfd_open(2)).
  *inode = pidfs_inode(fd);
  return fd;
}

bool pidfd_info(int pidfd, PidfdInfo* info) {
  memset(info, 0, sizeof *info);
  info->mask = kPidfdInfoPid | kPidfdInfoCreds;
  return ioctl(pidfd, kPidfdGetInfo, info) == 0;
}

void format_pidfs_identity(uint64_t inode, char* out) {
  snprintf(out, kIdentityCapacity, "%s:%llu", boot_id(), static_cast<unsigned long long>(inode));
}

void format_ticks_identity(int32_t pid, uint64_t ticks, char* out) {
  snprintf(out, kIdentityCapacity, "%s:%d:%llu", boot_id(), pid,
           static_cast<unsigned long long>(ticks));
}

int open_proc_dir(int32_t pid) {
  char path[32];
  snprintf(path, sizeof path, "/proc/%d", pid);
  return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int read_stat(int proc_dir, StatFields* out) {
  int fd = openat(proc_dir, "stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  char buf[1024];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  int err = errno;
  close(fd);
  if (n < 0) return err;
  if (n == 0) return ESRCH;  // the task went away between open and read
  buf[n] = '\0';
  return parse_stat(buf, out);
}

namespace {

// Reads one space-separated decimal field (optionally negative) and moves past it.
bool next_number(const char** p, long long* value) {
  const char* q = *p;
  while (*q == ' ') q++;
  bool negative = *q == '-';
  if (negative) q++;
  if (*q < '0' || *q > '9') return false;
  long long v = 0;
  while (*q >= '0' && *q <= '9') v = v * 10 + (*q++ - '0');
  *value = negative ? -v : v;
  *p = q;
  return true;
}

}  // namespace

int parse_stat(const char* buf, StatFields* out) {
  // comm is in parentheses and may itself contain ')' or spaces: parse after the last ')'.
  const char* p = strrchr(buf, ')');
  if (p == nullptr || p[1] != ' ' || p[2] == '\0') return EPROTO;
  // Fields after comm (proc(5)): 3 state, 4 ppid, 5 pgrp, 6 session, 7 tty_nr, ... 22 starttime.
  // A hand-rolled scan: sscanf was a measurable part of one processFacts call.
  out->state = p[2];
  p += 3;
  long long field[20] = {};
  for (int i = 4; i <= 22; i++) {
    if (!next_number(&p, &field[i - 4 + 1])) return EPROTO;
  }
  out->ppid = static_cast<int32_t>(field[1]);         // field 4
  out->tty_nr = static_cast<uint32_t>(field[4]);      // field 7
  out->starttime = static_cast<uint64_t>(field[19]);  // field 22
  return 0;
}

}  // namespace proofs::linux_backend
