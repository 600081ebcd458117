// Peer credentials on macOS (kernel-proofs.md §1.3): LOCAL_PEERTOKEN (macOS 11+) gives the audit
// token of the peer's last_pid, built at query time. It is checked against p_idversion from
// flavor 17, so a recycled pid is not reported as the peer's identity (§1.3 pitfall). pid, euid
// and egid all come from that one token (xnu bsd/kern/kern_prot.c: val[1] euid, val[2] egid,
// val[5] pid), so the three describe the same process.
#include <bsm/libbsm.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include "darwin.h"

#ifndef LOCAL_PEERTOKEN
#define LOCAL_PEERTOKEN 0x006  // bsd/sys/un.h, xnu-7195 (macOS 11)
#endif

static_assert(sizeof(audit_token_t) == 32, "audit_token_t is 8 x u32");

// In libbsm since macOS 10.7; declared here too in case an SDK's libbsm.h lacks it (it is absent
// from some iOS-era headers). Identical to the SDK's declaration when present.
extern "C" int audit_token_to_pidversion(audit_token_t atoken);

namespace proofs {

namespace {

constexpr const char* kPeerToken = "getsockopt(LOCAL_PEERTOKEN)";

// uipc_ctloutput (xnu bsd/kern/uipc_usrreq.c) fails LOCAL_PEERTOKEN with EINVAL when proc_find()
// no longer finds the peer's last_pid (exited, or a zombie). LOCAL_PEERPID still names that pid,
// so the failure is classified like any per-pid read (gone / zombie), with the pid.
Error token_error(int fd, int err) {
  if (err == EBADF || err == ENOTSOCK) return Error{Failure::kInvalidArgument, err, kPeerToken, -1};
  // An unknown LOCAL_* option is EOPNOTSUPP from uipc_ctloutput's default case, not ENOPROTOOPT.
  if (err == EOPNOTSUPP || err == ENOPROTOOPT) {
    return Error{Failure::kUnsupported, err, "LOCAL_PEERTOKEN", -1};
  }
  if (err == EINVAL) {
    pid_t pid = 0;
    socklen_t len = sizeof pid;
    if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, &pid, &len) == 0 && len == sizeof pid && pid > 0) {
      return darwin_backend::classify(err, kPeerToken, pid);
    }
  }
  return Error{Failure::kSyscallFailed, err, kPeerToken, -1};
}

}  // namespace

Error peer_credentials(int fd, PeerCredentials* out) {
  audit_token_t token;
  memset(&token, 0, sizeof token);
  socklen_t len = sizeof token;
  if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERTOKEN, &token, &len) != 0) return token_error(fd, errno);
  // SOL_LOCAL is 0, which is IPPROTO_IP on an inet socket: there option 6 is IP_RECVRETOPTS and
  // "succeeds" with a 4-byte int (bsd/netinet/ip_output.c). Only a whole token is a token.
  if (len != sizeof token) return Error{Failure::kInvalidArgument, EINVAL, kPeerToken, -1};
  out->pid = audit_token_to_pid(token);
  out->uid = audit_token_to_euid(token);
  out->gid = audit_token_to_egid(token);
  out->method = PeerMethod::kLocalPeerToken;
  out->has_identity = false;
  int pidversion = audit_token_to_pidversion(token);
  darwin_backend::ProcUniqIdentifierInfo u;
  if (out->pid > 0 && darwin_backend::uniq_info(out->pid, &u) == 0 && pidversion != 0 &&
      u.p_idversion == pidversion) {
    out->has_identity = true;
    out->identity_kind = IdentityKind::kDarwinUniqueId;
    darwin_backend::format_identity(u.p_uniqueid, out->identity);
  }
  return ok();
}

}  // namespace proofs
