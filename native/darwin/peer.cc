// Peer credentials on macOS (docs/design/kernel-proofs.md §1.3):
// - uid and gid from LOCAL_PEERCRED: the peer's effective uid and cr_groups[0] (its effective
//   gid), as unp_connect/unp_listen/unp_connect2 captured them at connect() / listen() /
//   socketpair() (xnu bsd/kern/uipc_usrreq.c, cru2x in bsd/kern/kern_prot.c), like Linux
//   SO_PEERCRED.
// - pid from LOCAL_PEERTOKEN (macOS 11+), which is built at query time from the process that has
//   the peer socket's last_pid *now* (uipc_ctloutput: proc_find(last_pid), then task_info), so a
//   recycled pid would name an unrelated process, and p_idversion read from that same process
//   agrees with it. The pid therefore gets an identity only after the holder check
//   (darwin.h holder_check): that process holds the other end of this very connection.
//   Otherwise identity is null and a proof that needs it fails by name.
#include <bsm/libbsm.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/ucred.h>
#include <sys/un.h>

#include "darwin.h"

#ifndef LOCAL_PEERTOKEN
#define LOCAL_PEERTOKEN 0x006  // bsd/sys/un.h, xnu-7195 (macOS 11)
#endif

static_assert(sizeof(audit_token_t) == 32, "audit_token_t is 8 x u32");
static_assert(sizeof(struct xucred) == 76, "xucred is 76 bytes");

// In libbsm since macOS 10.7; declared here too in case an SDK's libbsm.h lacks it (it is absent
// from some iOS-era headers). Identical to the SDK's declaration when present.
extern "C" int audit_token_to_pidversion(audit_token_t atoken);

namespace proofs {

namespace {

constexpr const char* kPeerCred = "getsockopt(LOCAL_PEERCRED)";
constexpr const char* kPeerToken = "getsockopt(LOCAL_PEERTOKEN)";

Error fd_error(int err, const char* syscall) {
  if (err == EBADF || err == ENOTSOCK) return Error{Failure::kInvalidArgument, err, syscall, -1};
  // An unknown LOCAL_* option is EOPNOTSUPP from uipc_ctloutput's default case, not ENOPROTOOPT.
  if (err == EOPNOTSUPP || err == ENOPROTOOPT)
    return Error{Failure::kUnsupported, err, syscall, -1};
  return Error{Failure::kSyscallFailed, err, syscall, -1};
}

// uipc_ctloutput fails LOCAL_PEERTOKEN with EINVAL when proc_find() no longer finds the peer's
// last_pid (exited, or a zombie). LOCAL_PEERPID still names that pid, so the failure is
// classified like any per-pid read (gone / zombie), with the pid.
Error token_error(int fd, int err) {
  if (err == EINVAL) {
    pid_t pid = 0;
    socklen_t len = sizeof pid;
    if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, &pid, &len) == 0 && len == sizeof pid && pid > 0) {
      return darwin_backend::classify(err, kPeerToken, pid);
    }
  }
  return fd_error(err, kPeerToken);
}

}  // namespace

Error peer_credentials(int fd, PeerCredentials* out) {
  // 1. Connect-time credentials. SOL_LOCAL is 0, which is IPPROTO_IP on an inet socket: there
  // option 1 is IP_OPTIONS and "succeeds" with another length (bsd/netinet/ip_output.c), so only
  // a whole xucred of version 0 is an answer. A datagram socket has none (EINVAL).
  struct xucred cred;
  memset(&cred, 0, sizeof cred);
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERCRED, &cred, &len) != 0) {
    int err = errno;
    if (err == EINVAL) return Error{Failure::kInvalidArgument, err, kPeerCred, -1};
    return fd_error(err, kPeerCred);
  }
  if (len != sizeof cred) return Error{Failure::kInvalidArgument, EINVAL, kPeerCred, -1};
  if (cred.cr_version != XUCRED_VERSION || cred.cr_ngroups < 1) {
    return Error{Failure::kSyscallFailed, EPROTO, kPeerCred, -1};
  }
  out->uid = cred.cr_uid;
  out->gid = cred.cr_groups[0];

  // 2. The peer's pid, from the process that has last_pid now.
  audit_token_t token;
  memset(&token, 0, sizeof token);
  len = sizeof token;
  if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERTOKEN, &token, &len) != 0) return token_error(fd, errno);
  if (len != sizeof token) return Error{Failure::kInvalidArgument, EINVAL, kPeerToken, -1};
  out->pid = audit_token_to_pid(token);
  out->method = PeerMethod::kLocalPeerToken;
  out->has_identity = false;

  // 3. An identity only when that process holds the other end of this connection.
  darwin_backend::UnixSocket own;
  Error e = darwin_backend::own_unix_socket(fd, "proc_pidfdinfo(PROC_PIDFDSOCKETINFO)", &own);
  if (failed(e)) return e;
  int pidversion = audit_token_to_pidversion(token);
  darwin_backend::Holder holder;
  e = darwin_backend::holder_check(out->pid, pidversion, own.conn_so, own.peer, &holder);
  if (failed(e)) return e;
  darwin_backend::ProcUniqIdentifierInfo u;
  if (holder.holds && darwin_backend::uniq_info(out->pid, &u) == 0 && u.p_idversion == pidversion) {
    out->has_identity = true;
    out->identity_kind = IdentityKind::kDarwinUniqueId;
    darwin_backend::format_identity(u.p_uniqueid, out->identity);
  }
  return ok();
}

}  // namespace proofs
