// The kernel-proofs surface every backend implements (docs/design/kernel-proofs.md §5 "Recommended
// layout"). Plain C++ structs and one function per kernel fact; no N-API and no OS headers, so each
// backend (native/linux, native/darwin, native/posix) is one small file behind this header and
// native/binding/ is the only code that turns these values into JavaScript.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace proofs {

// How a kernel read failed (lib/kernel/kernel-error.ts). kInvalidArgument is the caller's fault
// and becomes a usage error in JS; the other codes are KernelError codes.
enum class Failure : int {
  kNone = 0,
  kNoSuchProcess,
  kAccessDenied,
  kZombie,
  kUnsupported,
  kSyscallFailed,
  kInvalidArgument,
};

// The result of every call: kNone, or the classified failure with the evidence that decided it.
struct Error {
  Failure code;
  int err;              // errno as the kernel reported it (0 for a short read / missing feature)
  const char* syscall;  // static string naming the call, e.g. "readlinkat(exe)"
  int32_t pid;          // the pid the call was about, or -1
};

inline Error ok() {
  return Error{Failure::kNone, 0, "", -1};
}
inline bool failed(const Error& e) {
  return e.code != Failure::kNone;
}

// Generous enough for a Linux PATH_MAX readlink plus " (deleted)" and a macOS MAXPATHLEN path.
constexpr size_t kPathCapacity = 4200;
constexpr size_t kIdentityCapacity = 128;
constexpr size_t kTtyCapacity = 64;
constexpr size_t kMaxListeners = 256;

enum class IdentityKind : int { kLinuxPidfs = 0, kLinuxBootTicks = 1, kDarwinUniqueId = 2 };

// One process, read so that every field belongs to the same process (docs/design/kernel-proofs.md
// §2.5/§1.6).
struct ProcessFacts {
  int32_t pid;
  int32_t ppid;
  uint32_t uid;   // real uid
  uint32_t euid;  // effective uid
  bool has_executable;
  bool executable_deleted;
  char executable[kPathCapacity];
  bool has_cwd;
  char cwd[kPathCapacity];
  bool has_tty;
  char tty[kTtyCapacity];           // device path, e.g. /dev/pts/3 or /dev/ttys004
  int64_t start_time_us;            // epoch microseconds
  int64_t start_time_precision_us;  // 1 on macOS, one USER_HZ tick on Linux
  IdentityKind identity_kind;
  char identity[kIdentityCapacity];  // "<boot id>:<unique id>" (see lib/kernel/types.ts)
};

enum class FileType : int { kSocket, kFile, kDirectory, kSymlink, kFifo, kChar, kBlock, kOther };

// lstat facts of one path (never follows the last component).
struct PathFacts {
  FileType type;
  uint64_t inode;
  uint64_t device;  // user-space st_dev encoding
  uint32_t uid;
  uint32_t mode;  // st_mode & 07777
};

struct SocketFacts {
  PathFacts file;
  PathFacts dir;
  size_t listener_count;
  int32_t listeners[kMaxListeners];  // pids holding a listening socket bound to this file
  bool listeners_truncated;
  // Listening sockets bound to this file in the kernel's socket table, whoever holds them (Linux
  // sock_diag, capped at 64); -1 where the platform cannot see other users' sockets (macOS).
  int32_t listening_sockets;
};

enum class PeerMethod : int { kSoPeerPidfd, kSoPeerCred, kLocalPeerToken };

struct PeerCredentials {
  int32_t pid;
  uint32_t uid;
  uint32_t gid;
  PeerMethod method;
  bool has_identity;
  IdentityKind identity_kind;
  char identity[kIdentityCapacity];
};

// The file a connected client's peer (the accepted socket) is bound to, as sock_diag reports
// it (docs/design/kernel-proofs.md §2.4): a 32-bit inode and the user-space device number.
struct PeerSocketFile {
  uint64_t own_socket_inode;   // sockfs inode of our socket
  uint64_t peer_socket_inode;  // sockfs inode of the accepted socket on the other side
  bool has_file;               // false when the peer is not bound to a file (socketpair, abstract)
  uint64_t device;             // converted from the kernel's major<<20|minor encoding
  uint32_t inode32;            // udiag_vfs_ino: only the low 32 bits of the file's inode
};

struct KernelInfo {
  char platform[16];
  char release[128];
  char boot_id[kIdentityCapacity];
  bool pidfs_identity;
  bool peer_pidfd;
  uint32_t sun_path_max;  // longest path bind()/connect() accept, without the NUL
};

// A process handle: whatever the OS needs to act on exactly one process later.
struct ProcessHandle {
  int32_t pid;
  int fd;             // Linux: the pidfd; macOS: -1
  int exit_fd;        // a pollable fd that turns readable when the process exits, or -1
  uint64_t uniqueid;  // macOS p_uniqueid; Linux pidfs inode (0 when not pidfs)
  IdentityKind identity_kind;
  char identity[kIdentityCapacity];
};

// argv as the kernel holds it (macOS KERN_PROCARGS2, docs/design/kernel-proofs.md §1.1): the
// process's current argument strings, which it may have rewritten since exec.
struct ProcessArgv {
  std::vector<std::string> argv;
};

enum class LockOp : int { kExclusive, kShared, kUnlock };

// --- one declaration per fact ---------------------------------------------------------------

Error process_facts(int32_t pid, ProcessFacts* out);
// dir is the parent directory of path, as the caller computed it (lib/kernel/socket.ts). pid > 0:
// only that process's fds are read (the proof path, when the candidate is known), so listeners is
// {pid} or empty. pid 0: a scan, of the processes whose effective uid is ours (a listener we may
// trust is ours; the others cost one stat each), or of every process we may inspect when
// all_users.
Error socket_facts(const char* path, const char* dir, int32_t pid, bool all_users,
                   SocketFacts* out);
Error peer_credentials(int fd, PeerCredentials* out);
Error peer_socket_file(int fd, PeerSocketFile* out);
Error kernel_info(KernelInfo* out);
// macOS only; kUnsupported elsewhere (Linux reads /proc/<pid>/cmdline in lib/kernel).
Error process_argv(int32_t pid, ProcessArgv* out);

// Opens a handle; when expected_identity is non-null and differs, refuses with kNoSuchProcess.
Error handle_open(int32_t pid, const char* expected_identity, ProcessHandle* out);
Error handle_signal(ProcessHandle* h, int sig);
// *alive = false once the process exited (zombies count as exited).
Error handle_alive(ProcessHandle* h, bool* alive);
// Creates h->exit_fd (idempotent). *already_exited = true when the process is already gone.
Error handle_watch_exit(ProcessHandle* h, bool* already_exited);
// After exit_fd polled readable: *exited = true when it really reports this process's exit.
Error handle_exit_ready(ProcessHandle* h, bool* exited);
void handle_close(ProcessHandle* h);

// flock(2); *acquired = false when non_blocking and the lock is held elsewhere (EWOULDBLOCK).
Error flock_fd(int fd, LockOp op, bool non_blocking, bool* acquired);

// Shared POSIX helpers (native/posix/).
uint32_t sun_path_max();
Error lstat_facts(const char* path, PathFacts* out);
// The preamble of every socket_facts: clears the listener fields, lstat()s dir then path (syscall
// named "lstat(dir)" / "lstat(path)" on failure). The caller looks for listeners only when
// out->file.type is kSocket.
Error socket_file_facts(const char* path, const char* dir, SocketFacts* out);

}  // namespace proofs
