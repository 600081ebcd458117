// What this kernel offers (docs/design/kernel-proofs.md §2.2, §2.3): pidfs identities,
// SO_PEERPIDFD.
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "linux.h"

namespace proofs {

Error kernel_info(KernelInfo* out) {
  snprintf(out->platform, sizeof out->platform, "linux");
  struct utsname u;
  if (uname(&u) != 0) return Error{Failure::kSyscallFailed, errno, "uname", -1};
  snprintf(out->release, sizeof out->release, "%s", u.release);
  snprintf(out->boot_id, sizeof out->boot_id, "%s", linux_backend::boot_id());
  if (out->boot_id[0] == '\0') return Error{Failure::kUnsupported, 0, "read(boot_id)", -1};

  uint64_t ino = 0;
  int pidfd = linux_backend::open_pidfd(getpid(), &ino);
  out->pidfs_identity = pidfd >= 0 && ino != 0;
  if (pidfd >= 0) close(pidfd);

  // SO_PEERPIDFD on a socketpair: works from 6.5, ENOPROTOOPT before.
  out->peer_pidfd = false;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0) {
    int peer = -1;
    socklen_t len = sizeof peer;
    if (getsockopt(sv[0], SOL_SOCKET, SO_PEERPIDFD, &peer, &len) == 0 && peer >= 0) {
      out->peer_pidfd = true;
      close(peer);
    }
    close(sv[0]);
    close(sv[1]);
  }
  out->sun_path_max = sun_path_max();
  return ok();
}

}  // namespace proofs
