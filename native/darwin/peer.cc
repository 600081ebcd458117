// Peer credentials on macOS (kernel-proofs.md §1.3): LOCAL_PEERTOKEN (macOS 11+) gives the audit
// token of the peer's last_pid, built at query time. It is checked against p_idversion from
// flavor 17, so a recycled pid is not reported as the peer's identity (§1.3 pitfall).
#include <bsm/libbsm.h>
#include <errno.h>
#include <sys/socket.h>
#include <sys/ucred.h>
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

Error peer_credentials(int fd, PeerCredentials* out) {
  audit_token_t token;
  socklen_t len = sizeof token;
  if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERTOKEN, &token, &len) != 0) {
    int err = errno;
    if (err == EBADF || err == ENOTSOCK) {
      return Error{Failure::kInvalidArgument, err, "getsockopt(LOCAL_PEERTOKEN)", -1};
    }
    if (err == ENOPROTOOPT) return Error{Failure::kUnsupported, err, "LOCAL_PEERTOKEN", -1};
    return Error{Failure::kSyscallFailed, err, "getsockopt(LOCAL_PEERTOKEN)", -1};
  }
  out->pid = audit_token_to_pid(token);
  out->uid = audit_token_to_euid(token);
  out->method = PeerMethod::kLocalPeerToken;
  // The gid comes from LOCAL_PEERCRED (captured at connect/listen): cr_groups[0] is the egid.
  struct xucred cred;
  len = sizeof cred;
  out->gid = 0;
  if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERCRED, &cred, &len) == 0 &&
      cred.cr_version == XUCRED_VERSION && cred.cr_ngroups > 0) {
    out->gid = cred.cr_groups[0];
  }
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
