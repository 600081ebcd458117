// Helpers shared by the Linux backend files (not part of the cross-OS surface in proofs.h).
// Constants missing from Debian 12's 6.1 uapi headers are defined here, once, from the kernel's
// include/uapi (docs/design/kernel-proofs.md §2.2, §2.3).
#pragma once

#include <linux/ioctl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../proofs.h"

#ifndef PID_FS_MAGIC
#define PID_FS_MAGIC 0x50494446  // include/uapi/linux/magic.h, kernel >= 6.9
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77  // include/uapi/asm-generic/socket.h, kernel >= 6.5
#endif

namespace proofs::linux_backend {

// struct pidfd_info, VER0 (64 bytes): include/uapi/linux/pidfd.h, kernel >= 6.13. The ioctl is
// extensible: the size is encoded in the request number, so the 64-byte form works everywhere.
struct PidfdInfo {
  uint64_t mask;
  uint64_t cgroupid;
  uint32_t pid;
  uint32_t tgid;
  uint32_t ppid;
  uint32_t ruid;
  uint32_t rgid;
  uint32_t euid;
  uint32_t egid;
  uint32_t suid;
  uint32_t sgid;
  uint32_t fsuid;
  uint32_t fsgid;
  int32_t exit_code;
};
static_assert(sizeof(PidfdInfo) == 64, "PIDFD_INFO_SIZE_VER0");
constexpr unsigned long kPidfdGetInfo = _IOWR(0xFF, 11, PidfdInfo);
constexpr uint64_t kPidfdInfoPid = 1;
constexpr uint64_t kPidfdInfoCreds = 2;
constexpr uint64_t kPidfdInfoExit = 8;

// Classification in one place (docs/design/kernel-proofs.md §5, psutil's rule): errno first, then
// "is the pid gone", then "is it a zombie". proc_dir is an open /proc/<pid> dirfd or -1.
Error classify(int err, const char* syscall, int32_t pid, int proc_dir);
Error unsupported(const char* syscall, int err);

// The per-boot id (/proc/sys/kernel/random/boot_id), read once.
const char* boot_id();
// Opens a pidfd and, when it lives on pidfs, returns its inode in *inode (0 otherwise).
// Returns -1 with errno set when pidfd_open fails.
int open_pidfd(int32_t pid, uint64_t* inode);
// The pidfs inode of an fd, or 0 when the fd is not on pidfs (kernel < 6.9).
uint64_t pidfs_inode(int pidfd);
// PIDFD_GET_INFO; returns false (errno set) when the kernel lacks it or the call failed.
bool pidfd_info(int pidfd, PidfdInfo* info);
// Formats an identity value into out (capacity kIdentityCapacity).
void format_pidfs_identity(uint64_t inode, char* out);
void format_ticks_identity(int32_t pid, uint64_t ticks, char* out);

// Fields of /proc/<pid>/stat, parsed after the last ')' (comm may contain anything).
struct StatFields {
  char state;
  int32_t ppid;
  uint32_t tty_nr;
  uint64_t starttime;
};
// Reads stat through an open /proc/<pid> dirfd; returns errno (0 on success).
int read_stat(int proc_dir, StatFields* out);
// Parses the text of /proc/<pid>/stat (NUL-terminated); returns errno (0 on success).
int parse_stat(const char* text, StatFields* out);
// Opens /proc/<pid> as a directory (O_PATH is not enough: we openat() through it).
int open_proc_dir(int32_t pid);

}  // namespace proofs::linux_backend

namespace proofs::linux_backend {

// sock_diag (sockdiag.cc). Device numbers are returned in the user-space st_dev encoding.
uint64_t user_dev_from_kernel(uint32_t kdev);
// sockfs inodes of listening sockets bound to the file (dev, ino).
Error listening_socket_inodes(uint64_t file_dev, uint64_t file_ino, uint64_t* out, size_t cap,
                              size_t* count);
// A NETLINK_SOCK_DIAG socket for exact lookups; -1 with errno set.
int open_sock_diag();
// Whether the socket with this sockfs inode listens and is bound to the file (dev, ino), by an
// exact lookup on nl_fd. A socket that is not AF_UNIX, or is gone, is not (*yes = false).
Error listens_on_file(int nl_fd, uint64_t sock_ino, uint64_t file_dev, uint64_t file_ino,
                      bool* yes);
// The sockfs inode of the peer of a connected socket.
Error peer_of(uint64_t own_ino, uint64_t* peer_ino);
// The file a socket is bound to; *has_file = false for unbound or abstract sockets.
Error bound_file_of(uint64_t sock_ino, bool* has_file, uint64_t* dev, uint32_t* ino32);
// Pids (tgids) holding an fd to one of the sockfs inodes, from /proc/*/fd. Processes whose fd
// table we may not read are skipped and counted in *denied. only_uid >= 0: only processes whose
// /proc/<pid> belongs to that uid (the task's effective uid, root for a non-dumpable one) are read.
size_t socket_holders(const uint64_t* inodes, size_t n, int64_t only_uid, int32_t* pids, size_t cap,
                      bool* truncated, size_t* denied);
// Whether one process holds a listening socket bound to the file (dev, ino): only
// /proc/<pid>/fd is read, and each socket fd is looked up exactly. A gone pid holds nothing; an
// unreadable fd table is ACCESS_DENIED.
Error pid_listens_on(int32_t pid, uint64_t file_dev, uint64_t file_ino, bool* held);

}  // namespace proofs::linux_backend

namespace proofs::linux_backend {

// A process pinned for repeated reads (pinned.cc): its pidfd, its /proc/<pid> dirfd and an open
// /proc/<pid>/stat. All three stay bound to that one struct pid: once it is reaped, reads through
// them fail with ESRCH even if the number is reused, so a cached entry can never describe another
// process. A few are kept (least recently used out) because opening them is most of the cost of
// one processFacts call on this kind of VM (scripts/bench/kernel.bench.ts).
struct Pinned {
  int32_t pid;
  int pidfd;  // -1 on kernels without pidfd_open
  int dir;
  int stat_fd;
  uint64_t pidfs_ino;
  uint64_t starttime;
  uint64_t used;
  IdentityKind identity_kind;  // formatted once at pin time: both kinds are fixed for the process
  char identity[kIdentityCapacity];
};
constexpr size_t kPinnedCapacity = 16;
// Callers hold pinned_mutex() while they use an entry.
struct PinnedLock {
  PinnedLock();
  ~PinnedLock();
  PinnedLock(const PinnedLock&) = delete;
  PinnedLock& operator=(const PinnedLock&) = delete;
};
Pinned* pinned_find(int32_t pid);
// Stores an entry (taking ownership of its fds), evicting the least recently used one.
Pinned* pinned_insert(const Pinned& entry);
void pinned_evict(Pinned* entry);
void pinned_close(Pinned* entry);
// Reads stat through a kept fd (pread at offset 0 regenerates the seq_file); returns errno.
int read_stat_fd(int stat_fd, StatFields* out);

}  // namespace proofs::linux_backend
