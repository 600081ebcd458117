// argv as the kernel holds it: sysctl {CTL_KERN, KERN_PROCARGS2, pid} (docs/design/kernel-proofs.md
// §1.1), what ps(1) and psutil read. The layout is xnu bsd/kern/kern_sysctl.c sysctl_procargsx with
// argc_yes: an int argc, then the top of the process's stack strings area from the executable
// path on ("executable_path=" stripped), i.e. the path, NUL padding, then argc NUL-terminated
// argument strings and the environment (omitted for restricted processes). Every byte is the
// target's own (it can rewrite its stack), so the parse never trusts a length it did not check.
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/sysctl.h>
#include <sys/types.h>

#include <vector>

#include "darwin.h"

namespace proofs {

namespace {

constexpr const char* kSyscall = "sysctl(KERN_PROCARGS2)";
// A buffer the kernel filled with something other than the layout above.
constexpr const char* kMalformed = "sysctl(KERN_PROCARGS2) layout";
// ARG_MAX is 1 MiB on current macOS; a larger kern.argmax is refused rather than allocated.
constexpr size_t kMaxArgmax = 16u << 20;

Error malformed(int32_t pid) {
  return Error{Failure::kSyscallFailed, 0, kMalformed, pid};
}

// sysctl_procargsx answers EINVAL, never ESRCH or EPERM, for a pid it cannot find (proc_find
// skips zombies), a process without a user stack, another uid's process when we are not root,
// and a task that is not IPC-active (exiting). The pid's state tells which.
Error classify_procargs(int err, int32_t pid) {
  Error e = darwin_backend::classify(err, kSyscall, pid);
  if (err == EINVAL && e.code == Failure::kSyscallFailed && kill(pid, 0) != 0 && errno == EPERM) {
    return Error{Failure::kAccessDenied, err, kSyscall, pid};
  }
  return e;
}

}  // namespace

Error process_argv(int32_t pid, ProcessArgv* out) {
  out->argv.clear();
  int argmax = 0;
  size_t argmax_len = sizeof argmax;
  int argmax_mib[2] = {CTL_KERN, KERN_ARGMAX};
  if (sysctl(argmax_mib, 2, &argmax, &argmax_len, nullptr, 0) != 0) {
    return Error{Failure::kSyscallFailed, errno, "sysctl(KERN_ARGMAX)", pid};
  }
  // The kernel refuses a buffer larger than ARG_MAX + sizeof(int) (EINVAL), so exactly argmax.
  if (argmax_len != sizeof argmax || argmax < static_cast<int>(sizeof(int)) ||
      static_cast<size_t>(argmax) > kMaxArgmax) {
    return Error{Failure::kSyscallFailed, 0, "sysctl(KERN_ARGMAX)", pid};
  }
  std::vector<char> buf(static_cast<size_t>(argmax));
  size_t len = buf.size();
  int mib[3] = {CTL_KERN, KERN_PROCARGS2, pid};
  if (sysctl(mib, 3, buf.data(), &len, nullptr, 0) != 0) return classify_procargs(errno, pid);
  if (len > buf.size() || len < sizeof(int)) return malformed(pid);

  int argc = 0;
  memcpy(&argc, buf.data(), sizeof argc);
  const char* p = buf.data() + sizeof argc;
  const char* end = buf.data() + len;
  // Each argument takes at least its NUL, so more than the bytes left is a lie.
  if (argc < 0 || static_cast<size_t>(argc) > static_cast<size_t>(end - p)) return malformed(pid);

  // The executable path, then NUL padding before argv[0]. An empty argv[0] cannot be told from
  // that padding (ps and psutil skip it the same way): it would be skipped, and the argv then
  // compares unequal to the one launched, which fails safe.
  const char* nul = static_cast<const char*>(memchr(p, '\0', static_cast<size_t>(end - p)));
  if (nul == nullptr) return malformed(pid);
  p = nul;
  while (p < end && *p == '\0') p++;

  out->argv.reserve(static_cast<size_t>(argc));
  for (int i = 0; i < argc; i++) {
    if (p >= end) return malformed(pid);
    nul = static_cast<const char*>(memchr(p, '\0', static_cast<size_t>(end - p)));
    if (nul == nullptr) return malformed(pid);
    out->argv.emplace_back(p, static_cast<size_t>(nul - p));
    p = nul + 1;
  }
  return ok();
}

}  // namespace proofs
