// Helpers shared by the macOS backend files. Struct layouts are asserted at compile time against
// docs/design/kernel-proofs.md §4 (sizes read from the macOS 12+ SDK, identical on arm64 and
// x86_64); the private flavor 17 struct is declared here because the public SDK lacks it (§1.1).
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "../proofs.h"

namespace proofs::darwin_backend {

// PROC_PIDUNIQIDENTIFIERINFO: #ifdef PRIVATE in xnu bsd/sys/proc_info_private.h; the kernel
// itself marks the struct "This structure is API" with _Static_assert(sizeof == 56).
constexpr int kProcPidUniqIdentifierInfo = 17;
struct ProcUniqIdentifierInfo {
  uint8_t p_uuid[16];          // LC_UUID of the main executable
  uint64_t p_uniqueid;         // ++nextuniqueid at fork; kept across exec; never reused in a boot
  uint64_t p_puniqueid;        // parent's uniqueid at spawn
  int32_t p_idversion;         // new on fork and every exec (= audit token val[7]); 0 before 11
  int32_t p_orig_ppidversion;  // xnu-11417+, reserved before
  uint64_t p_reserve2;
  uint64_t p_reserve3;
};
static_assert(sizeof(ProcUniqIdentifierInfo) == 56, "proc_uniqidentifierinfo is 56 bytes");
static_assert(offsetof(ProcUniqIdentifierInfo, p_uniqueid) == 16, "p_uniqueid@16");
static_assert(offsetof(ProcUniqIdentifierInfo, p_idversion) == 32, "p_idversion@32");

// Classification in one place (docs/design/kernel-proofs.md §1.4, psutil psutil_raise_for_pid):
// errno first, then "is the pid gone", then "is it a zombie".
Error classify(int err, const char* syscall, int32_t pid);
// proc_pidinfo(pid, 17). With zombies = false (arg 0) an exited, unreaped process is not found
// (ESRCH); with zombies = true (arg 1) it is (xnu bsd/kern/proc_info.c proc_pidinfo: flavor 17
// with arg != 0 sets findzomb, then proc_find_zombref). Returns errno (0 = ok).
int uniq_info(int32_t pid, ProcUniqIdentifierInfo* out, bool zombies = false);
// kern.bootsessionuuid, read once.
const char* boot_session();
void format_identity(uint64_t uniqueid, char* out);

// --- unix sockets through libproc (sockets.cc) -------------------------------------------------

// One AF_UNIX socket as PROC_PIDFDSOCKETINFO reports it (xnu bsd/kern/socket_info.c
// fill_socketinfo): soi_so / unsi_conn_so are VM_KERNEL_ADDRHASH handles of the socket and of the
// socket it is connected to, so two ends of one connection match by A.conn_so == B.so.
struct UnixSocket {
  uint64_t so;
  uint64_t conn_so;
  bool listening;     // SO_ACCEPTCONN
  int queued;         // soi_qlen + soi_incqlen: connections waiting for accept()
  std::string bound;  // unsi_addr: the name it was bound with, exactly as passed to bind()
  std::string peer;   // unsi_caddr: the name of the socket it is connected to
};

// PROC_PIDFDSOCKETINFO of one fd of pid; errno (0 = ok, EOPNOTSUPP when not AF_UNIX).
int unix_socket(int32_t pid, int fd, UnixSocket* out);
// Calls visit(socket) for each AF_UNIX socket fd of pid until visit returns false. Returns errno
// of PROC_PIDLISTFDS (EPERM for another user's process unless we are root; ESRCH when gone).
int each_unix_socket(int32_t pid, const std::function<bool(const UnixSocket&)>& visit);

// The holder check (docs/design/kernel-proofs.md §1.3 pitfall): LOCAL_PEERTOKEN names whichever
// process has the peer socket's last_pid *now*, so a pid and its pidversion are only the peer's
// identity when that process holds the other end of our connection. pid holds it when, while its
// p_idversion stays `pidversion`, one of its fds is the socket `peer_so` (accepted, or a
// socketpair), or, before the server accept()ed, a listening socket bound to the name `peer_addr`
// with a connection waiting (sonewconn copied last_pid from that listener: xnu
// bsd/kern/uipc_socket2.c). *listeners gets the soi_so of the listening sockets of pid bound to
// peer_addr (the waiting ones when any wait). Another user's fd table is not readable (EPERM): then
// *holds stays false.
struct Holder {
  bool holds;
  std::vector<uint64_t> listeners;
};
Error holder_check(int32_t pid, int32_t pidversion, uint64_t peer_so, const std::string& peer_addr,
                   Holder* out);

// Our own end of a connected socket fd: its PROC_PIDFDSOCKETINFO (EBADF / ENOTSOCK / EOPNOTSUPP
// for what is not an AF_UNIX socket are the caller's mistake: kInvalidArgument).
Error own_unix_socket(int fd, const char* syscall, UnixSocket* out);

// --- the executable (image.cc) ----------------------------------------------------------------

// True when the file now at `path` is not the image the process runs: none of its LC_UUIDs (every
// slice of a universal file) is the process's p_uuid. False when it is, or when that cannot be
// told (no LC_UUID in the process, a file that is not Mach-O, an unreadable file).
bool image_replaced(const char* path, const uint8_t uuid[16]);

// --- tty names (libproc.cc) -------------------------------------------------------------------

// "/dev/<name>" of a character device, from a small cache in front of devname_r, which looks the
// name up on every call (Libc gen/devname.c). Returns false when the device has no name.
bool tty_name(uint32_t dev, char* out, size_t cap);

}  // namespace proofs::darwin_backend
