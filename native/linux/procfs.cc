// Per-pid facts from procfs through one /proc/<pid> dirfd, bound to one process by a pidfd
// (docs/design/kernel-proofs.md §2.1, §2.2, §2.5 sketch; systemd pidref_verify for the final
// re-check).
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "linux.h"

namespace proofs {

namespace {

using linux_backend::classify;
using linux_backend::PidfdInfo;
using linux_backend::StatFields;

constexpr char kDeletedSuffix[] = " (deleted)";

int64_t clock_us(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

// Wall-clock time of boot = CLOCK_REALTIME - CLOCK_BOOTTIME, read back to back and once per
// process. /proc/stat "btime" is whole seconds (256 ms off in the probe,
// docs/design/kernel-proofs.md §2.1). Reading it once keeps startTimeUs stable within a process; a
// later clock step is not applied.
int64_t boot_wall_us() {
  static const int64_t value = clock_us(CLOCK_REALTIME) - clock_us(CLOCK_BOOTTIME);
  return value;
}

int64_t clock_ticks_per_second() {
  static const int64_t hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
  return hz;
}

// Reads a /proc/<pid>/{exe,cwd} link. Returns errno (0 on success); n = 0 means no path.
int read_link(int dir, const char* name, char* out, size_t cap, size_t* len) {
  ssize_t n = readlinkat(dir, name, out, cap - 1);
  if (n < 0) return errno;
  out[n] = '\0';
  *len = static_cast<size_t>(n);
  return 0;
}

// " (deleted)" is appended by d_path() for an unlinked file, but a file may also really be named
// that way: trust the suffix only when the inode behind the link has no names left.
bool strip_deleted(int dir, const char* name, char* path, size_t len) {
  const size_t suffix = sizeof kDeletedSuffix - 1;
  if (len < suffix || strcmp(path + len - suffix, kDeletedSuffix) != 0) return false;
  struct stat st;
  if (fstatat(dir, name, &st, 0) != 0 || st.st_nlink != 0) return false;
  path[len - suffix] = '\0';
  return true;
}

bool find_char_device(const char* dir_path, dev_t dev, char* out, size_t cap) {
  DIR* d = opendir(dir_path);
  if (d == nullptr) return false;
  bool found = false;
  while (struct dirent* e = readdir(d)) {
    if (e->d_type != DT_CHR && e->d_type != DT_UNKNOWN) continue;
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir_path, e->d_name);
    struct stat st;
    if (lstat(p, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == dev && strlen(p) < cap) {
      memcpy(out, p, strlen(p) + 1);
      found = true;
      break;
    }
  }
  closedir(d);
  return found;
}

// stat field 7 tty_nr -> device path (docs/design/kernel-proofs.md §2.1): major =
// (tty_nr>>8)&0xfff, minor = (tty_nr&0xff)|((tty_nr>>12)&0xfff00). Unix98 ptys (majors 136-143) are
// named by number, as procps does; anything else is looked up in /dev by st_rdev, as psutil does.
bool tty_path(uint32_t tty_nr, char* out, size_t cap) {
  if (tty_nr == 0) return false;
  unsigned major_n = (tty_nr >> 8) & 0xfff;
  unsigned minor_n = (tty_nr & 0xff) | ((tty_nr >> 12) & 0xfff00);
  if (major_n >= 136 && major_n <= 143) {
    snprintf(out, cap, "/dev/pts/%u", (major_n - 136) * 256 + minor_n);
    return true;
  }
  dev_t dev = makedev(major_n, minor_n);
  if (find_char_device("/dev", dev, out, cap)) return true;
  if (find_char_device("/dev/pts", dev, out, cap)) return true;
  snprintf(out, cap, "/dev/char/%u:%u", major_n, minor_n);  // unnamed here: still not "none"
  return true;
}

// Fallback for kernels without PIDFD_GET_INFO (< 6.13): the Uid: line of /proc/<pid>/status.
int read_status_uids(int dir, uint32_t* ruid, uint32_t* euid) {
  int fd = openat(dir, "status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  int err = errno;
  close(fd);
  if (n < 0) return err;
  if (n == 0) return ESRCH;
  buf[n] = '\0';
  const char* line = strstr(buf, "\nUid:");
  if (line == nullptr) return EPROTO;
  unsigned long r = 0, e = 0;
  if (sscanf(line + 5, " %lu %lu", &r, &e) != 2) return EPROTO;
  *ruid = static_cast<uint32_t>(r);
  *euid = static_cast<uint32_t>(e);
  return 0;
}

}  // namespace

namespace {

// Opens and checks a new pinned entry for pid (fds owned by *out on success).
Error pin(int32_t pid, linux_backend::Pinned* out, StatFields* st) {
  *out = linux_backend::Pinned{pid, -1, -1, -1, 0, 0, 0, IdentityKind::kLinuxBootTicks, {}};
  // 1. Pin the process: a pidfd refers to this struct pid for its whole life.
  out->pidfd = linux_backend::open_pidfd(pid, &out->pidfs_ino);
  if (out->pidfd < 0 && errno != ENOSYS) return classify(errno, "pidfd_open", pid, -1);
  // 2. Every procfs read goes through one dirfd: after the process is reaped, openat() through
  // it fails with ESRCH instead of reading a recycled pid.
  out->dir = linux_backend::open_proc_dir(pid);
  if (out->dir < 0) {
    Error e = classify(errno, "open(/proc/<pid>)", pid, -1);
    linux_backend::pinned_close(out);
    return e;
  }
  out->stat_fd = openat(out->dir, "stat", O_RDONLY | O_CLOEXEC);
  int err = out->stat_fd < 0 ? errno : linux_backend::read_stat_fd(out->stat_fd, st);
  if (err != 0) {
    Error e = classify(err, "read(stat)", pid, out->dir);
    linux_backend::pinned_close(out);
    return e;
  }
  out->starttime = st->starttime;
  // The identity: the pidfs inode when pidfds live on pidfs (>= 6.9), else boot id + pid + ticks.
  if (out->pidfs_ino != 0) {
    out->identity_kind = IdentityKind::kLinuxPidfs;
    linux_backend::format_pidfs_identity(out->pidfs_ino, out->identity);
  } else {
    out->identity_kind = IdentityKind::kLinuxBootTicks;
    linux_backend::format_ticks_identity(pid, st->starttime, out->identity);
  }
  return ok();
}

}  // namespace

Error process_facts(int32_t pid, ProcessFacts* out) {
  linux_backend::PinnedLock lock;
  StatFields st;
  linux_backend::Pinned* p = linux_backend::pinned_find(pid);
  if (p != nullptr) {
    // A pinned process that was reaped fails here (ESRCH): forget it and look the pid up anew.
    int err = linux_backend::read_stat_fd(p->stat_fd, &st);
    if (err != 0 || st.starttime != p->starttime) {
      linux_backend::pinned_evict(p);
      p = nullptr;
    }
  }
  if (p == nullptr) {
    linux_backend::Pinned fresh;
    Error e = pin(pid, &fresh, &st);
    if (failed(e)) return e;
    p = linux_backend::pinned_insert(fresh);
  }
  // Any failure below ends the pin: the process is gone, a zombie, or not ours to read.
  auto fail = [&](Error e) {
    linux_backend::pinned_evict(p);
    return e;
  };
  if (st.state == 'Z' || st.state == 'X')
    return fail(Error{Failure::kZombie, 0, "read(stat)", pid});

  // 3. Credentials, and the check that the pidfd and the dirfd name the same, still unreaped
  // process: PIDFD_GET_INFO after open(/proc/<pid>) proves the pid was not recycled in between.
  bool have_uids = false;
  if (p->pidfd >= 0) {
    PidfdInfo info;
    if (linux_backend::pidfd_info(p->pidfd, &info)) {
      if (info.pid != static_cast<uint32_t>(pid)) {
        return fail(Error{Failure::kNoSuchProcess, ESRCH, "PIDFD_GET_INFO", pid});
      }
      out->uid = info.ruid;
      out->euid = info.euid;
      have_uids = true;
    } else if (errno == ESRCH) {
      return fail(Error{Failure::kNoSuchProcess, ESRCH, "PIDFD_GET_INFO", pid});
    } else if (syscall(SYS_pidfd_send_signal, p->pidfd, 0, nullptr, 0) != 0 && errno == ESRCH) {
      // Kernel < 6.13: signal 0 through the pidfd tells whether it is reaped (EPERM = alive).
      return fail(Error{Failure::kNoSuchProcess, ESRCH, "pidfd_send_signal(0)", pid});
    }
  }
  if (!have_uids) {
    if (int err = read_status_uids(p->dir, &out->uid, &out->euid)) {
      return fail(classify(err, "read(status)", pid, p->dir));
    }
  }

  // 4. Executable and cwd. ENOENT on a live, non-zombie process means the kernel has no path
  // (kernel threads); EACCES means we may not look (ptrace access), which is not absence.
  size_t len = 0;
  out->executable_deleted = false;
  if (int err = read_link(p->dir, "exe", out->executable, sizeof out->executable, &len)) {
    Error e = classify(err, "readlinkat(exe)", pid, p->dir);
    if (err != ENOENT || e.code != Failure::kSyscallFailed) return fail(e);
    out->has_executable = false;
    out->executable[0] = '\0';
  } else {
    out->has_executable = true;
    out->executable_deleted = strip_deleted(p->dir, "exe", out->executable, len);
  }
  if (int err = read_link(p->dir, "cwd", out->cwd, sizeof out->cwd, &len)) {
    Error e = classify(err, "readlinkat(cwd)", pid, p->dir);
    if (err != ENOENT || e.code != Failure::kSyscallFailed) return fail(e);
    out->has_cwd = false;
    out->cwd[0] = '\0';
  } else {
    out->has_cwd = true;
  }

  out->pid = pid;
  out->ppid = st.ppid;
  out->has_tty = tty_path(st.tty_nr, out->tty, sizeof out->tty);
  if (!out->has_tty) out->tty[0] = '\0';

  // 5. Start time: USER_HZ ticks of CLOCK_BOOTTIME since boot; the honest precision is one tick.
  const int64_t hz = clock_ticks_per_second();
  out->start_time_us = boot_wall_us() + static_cast<int64_t>(st.starttime) * 1000000 / hz;
  out->start_time_precision_us = 1000000 / hz;

  // 6. Identity, formatted when the process was pinned (the start tick was checked above).
  out->identity_kind = p->identity_kind;
  memcpy(out->identity, p->identity, sizeof out->identity);
  // No final re-read is needed: every read above went through fds bound to the pinned process,
  // which fail with ESRCH once it is reaped, and step 3 proved they name the process the pidfd
  // pins.
  return ok();
}

// Linux reads /proc/<pid>/cmdline in TypeScript (lib/kernel/procfs-read.ts); the addon's call
// is the macOS one (native/darwin/argv.cc).
Error process_argv(int32_t pid, ProcessArgv* out) {
  out->argv.clear();
  return Error{Failure::kUnsupported, 0, "process argv (read from /proc/<pid>/cmdline)", pid};
}

}  // namespace proofs
