// Per-pid facts from libproc (docs/design/kernel-proofs.md §1.1, §1.6 sketch). Every proc_* call
// returns 0 on failure with errno set, and the number of bytes written on success; a short result
// is a failure too (ABI mismatch or truncation), as psutil treats it.
#include <errno.h>
#include <libproc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/proc.h>  // SZOMB
#include <sys/proc_info.h>
#include <sys/stat.h>
#include <sys/sysctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <mutex>

#include "darwin.h"

// docs/design/kernel-proofs.md §4: sizes and offsets this file depends on.
static_assert(sizeof(struct proc_bsdinfo) == 136, "proc_bsdinfo is 136 bytes");
static_assert(offsetof(struct proc_bsdinfo, pbi_ppid) == 16, "pbi_ppid@16");
static_assert(offsetof(struct proc_bsdinfo, pbi_uid) == 20, "pbi_uid@20");
static_assert(offsetof(struct proc_bsdinfo, pbi_ruid) == 28, "pbi_ruid@28");
static_assert(offsetof(struct proc_bsdinfo, e_tdev) == 108, "e_tdev@108");
static_assert(offsetof(struct proc_bsdinfo, pbi_start_tvsec) == 120, "pbi_start_tvsec@120");
static_assert(offsetof(struct proc_bsdinfo, pbi_start_tvusec) == 128, "pbi_start_tvusec@128");
static_assert(sizeof(struct proc_bsdshortinfo) == 64, "proc_bsdshortinfo is 64 bytes");
static_assert(sizeof(struct proc_vnodepathinfo) == 2352, "proc_vnodepathinfo is 2352 bytes");
static_assert(offsetof(struct proc_vnodepathinfo, pvi_cdir.vip_path) == 152, "cdir path@152");
static_assert(sizeof(struct vinfo_stat) == 136, "vinfo_stat is 136 bytes");
static_assert(PROC_PIDPATHINFO_MAXSIZE == 4096, "PROC_PIDPATHINFO_MAXSIZE");
static_assert(PROC_PIDPATHINFO_MAXSIZE < proofs::kPathCapacity, "path buffer fits");

namespace proofs {

namespace darwin_backend {

namespace {

bool pid_exists(int32_t pid) {
  return kill(pid, 0) == 0 || errno == EPERM;
}

// psutil's is_zombie: sysctl KERN_PROC_PID works for every uid and for zombies. A missing pid
// "succeeds" with len == 0 (docs/design/kernel-proofs.md §1.1 pitfall).
bool is_zombie(int32_t pid) {
  int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_PID, pid};
  struct kinfo_proc kp;
  size_t len = sizeof kp;
  if (sysctl(mib, 4, &kp, &len, nullptr, 0) != 0 || len == 0) return false;
  return kp.kp_proc.p_stat == SZOMB;
}

}  // namespace

Error classify(int err, const char* syscall, int32_t pid) {
  if (err == EPERM || err == EACCES) return Error{Failure::kAccessDenied, err, syscall, pid};
  if (pid > 0) {
    if (!pid_exists(pid)) return Error{Failure::kNoSuchProcess, err, syscall, pid};
    if (is_zombie(pid)) return Error{Failure::kZombie, err, syscall, pid};
  }
  return Error{Failure::kSyscallFailed, err, syscall, pid};
}

int uniq_info(int32_t pid, ProcUniqIdentifierInfo* out, bool zombies) {
  errno = 0;
  int n = proc_pidinfo(pid, kProcPidUniqIdentifierInfo, zombies ? 1 : 0, out, sizeof *out);
  if (n == static_cast<int>(sizeof *out)) return 0;
  return errno != 0 ? errno : EIO;
}

const char* boot_session() {
  static const struct Session {
    char value[kIdentityCapacity];
    Session() : value{} {
      size_t len = sizeof value - 1;
      if (sysctlbyname("kern.bootsessionuuid", value, &len, nullptr, 0) != 0) value[0] = '\0';
    }
  } session;
  return session.value;
}

void format_identity(uint64_t uniqueid, char* out) {
  snprintf(out, kIdentityCapacity, "%s:%llu", boot_session(),
           static_cast<unsigned long long>(uniqueid));
}

bool tty_name(uint32_t dev, char* out, size_t cap) {
  // A pty's device number names it for the boot: the driver makes its node from the minor
  // (PTSD_TEMPLATE "ttys%03d", xnu bsd/kern/tty_ptmx.c), so names are cached; a few entries, the
  // oldest replaced. The lock also serializes devname_r, whose lookup state is process-wide
  // (Libc gen/devname.c).
  struct Entry {
    uint32_t dev;
    char name[kTtyCapacity];
  };
  static std::mutex lock;
  static Entry cache[32];
  static size_t used = 0;
  static size_t next = 0;
  std::lock_guard<std::mutex> guard(lock);
  for (size_t i = 0; i < used; i++) {
    if (cache[i].dev == dev) {
      snprintf(out, cap, "%s", cache[i].name);
      return true;
    }
  }
  // Room for the name after "/dev/".
  char buf[kTtyCapacity - 5];
  const char* name = devname_r(static_cast<dev_t>(dev), S_IFCHR, buf, static_cast<int>(sizeof buf));
  // devname_r formats "#C<major>:<minor>"-style text (or "??") when the device has no name.
  if (name == nullptr || name[0] == '\0' || name[0] == '?' || name[0] == '#') return false;
  Entry& slot = cache[used < 32 ? used++ : next++ % 32];
  slot.dev = dev;
  snprintf(slot.name, sizeof slot.name, "/dev/%s", name);
  snprintf(out, cap, "%s", slot.name);
  return true;
}

}  // namespace darwin_backend

using darwin_backend::classify;

Error process_facts(int32_t pid, ProcessFacts* out) {
  // 1. Identity first (flavor 17 has no same-uid check), re-read at the end.
  darwin_backend::ProcUniqIdentifierInfo before;
  if (int err = darwin_backend::uniq_info(pid, &before)) {
    return classify(err, "proc_pidinfo(PROC_PIDUNIQIDENTIFIERINFO)", pid);
  }

  // 2. ppid, uids, tty and start time in one call (EPERM for another uid unless root).
  struct proc_bsdinfo bi;
  errno = 0;
  if (proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &bi, sizeof bi) != static_cast<int>(sizeof bi)) {
    return classify(errno != 0 ? errno : EIO, "proc_pidinfo(PROC_PIDTBSDINFO)", pid);
  }

  // 3. Executable: proc_pidpath has no uid check; ENOENT on a live process = binary deleted.
  out->executable_deleted = false;
  errno = 0;
  int n = proc_pidpath(pid, out->executable, PROC_PIDPATHINFO_MAXSIZE);
  if (n > 0) {
    out->has_executable = true;
    out->executable[n < PROC_PIDPATHINFO_MAXSIZE ? n : PROC_PIDPATHINFO_MAXSIZE - 1] = '\0';
    // proc_pidpath names the text vnode's path only after checking that a lookup of that path
    // succeeds (proc_pidpathinfo_internal), not that it finds the same file: a binary replaced by
    // rename (a self-update) still gives its path. Linux reports that case as " (deleted)"; here
    // the file now at the path must carry the process's LC_UUID.
    out->executable_deleted = darwin_backend::image_replaced(out->executable, before.p_uuid);
  } else {
    // ENOENT on a live process: the file was deleted (the lookup of its last path failed). The
    // kernel then gives no path at all, unlike Linux (docs in lib/kernel/types.ts).
    int err = errno != 0 ? errno : EIO;
    Error e = classify(err, "proc_pidpath", pid);
    if (err != ENOENT || e.code != Failure::kSyscallFailed) return e;
    out->has_executable = false;
    out->executable_deleted = true;
    out->executable[0] = '\0';
  }

  // 4. cwd: PROC_PIDVNODEPATHINFO -> pvi_cdir.vip_path.
  static thread_local struct proc_vnodepathinfo vpi;
  errno = 0;
  if (proc_pidinfo(pid, PROC_PIDVNODEPATHINFO, 0, &vpi, sizeof vpi) !=
      static_cast<int>(sizeof vpi)) {
    return classify(errno != 0 ? errno : EIO, "proc_pidinfo(PROC_PIDVNODEPATHINFO)", pid);
  }
  size_t cwd_len = strnlen(vpi.pvi_cdir.vip_path, sizeof vpi.pvi_cdir.vip_path);
  out->has_cwd = cwd_len > 0;
  memcpy(out->cwd, vpi.pvi_cdir.vip_path, cwd_len);
  out->cwd[cwd_len] = '\0';

  out->pid = pid;
  out->ppid = static_cast<int32_t>(bi.pbi_ppid);
  out->uid = bi.pbi_ruid;
  out->euid = bi.pbi_uid;  // pbi_uid is the effective uid (§1.1)

  // 5. Controlling tty: only meaningful with P_CONTROLT set and e_tdev != NODEV.
  out->has_tty = (bi.pbi_flags & PROC_FLAG_CONTROLT) != 0 &&
                 bi.e_tdev != static_cast<uint32_t>(NODEV) &&
                 darwin_backend::tty_name(bi.e_tdev, out->tty, sizeof out->tty);
  if (!out->has_tty) out->tty[0] = '\0';

  // 6. Start time: p_start, wall-clock µs taken at fork and kept across exec (§1.1).
  out->start_time_us = static_cast<int64_t>(bi.pbi_start_tvsec) * 1000000 +
                       static_cast<int64_t>(bi.pbi_start_tvusec);
  out->start_time_precision_us = 1;
  out->identity_kind = IdentityKind::kDarwinUniqueId;
  darwin_backend::format_identity(before.p_uniqueid, out->identity);

  // 7. The same process all along? A different uniqueid means the pid was recycled mid-read.
  darwin_backend::ProcUniqIdentifierInfo after;
  if (int err = darwin_backend::uniq_info(pid, &after)) {
    return classify(err, "proc_pidinfo(PROC_PIDUNIQIDENTIFIERINFO)", pid);
  }
  if (after.p_uniqueid != before.p_uniqueid) {
    return Error{Failure::kNoSuchProcess, ESRCH, "proc_pidinfo(PROC_PIDUNIQIDENTIFIERINFO)", pid};
  }
  return ok();
}

Error kernel_info(KernelInfo* out) {
  snprintf(out->platform, sizeof out->platform, "darwin");
  struct utsname u;
  if (uname(&u) != 0) return Error{Failure::kSyscallFailed, errno, "uname", -1};
  snprintf(out->release, sizeof out->release, "%s", u.release);
  snprintf(out->boot_id, sizeof out->boot_id, "%s", darwin_backend::boot_session());
  if (out->boot_id[0] == '\0') {
    return Error{Failure::kUnsupported, 0, "sysctl(kern.bootsessionuuid)", -1};
  }
  out->pidfs_identity = false;
  out->peer_pidfd = false;
  out->sun_path_max = sun_path_max();
  return ok();
}

}  // namespace proofs
