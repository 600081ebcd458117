// The part of socket_facts that is the same on Linux and macOS: lstat of the parent directory and
// of the path itself (never following the last component), before any backend looks for
// listeners (docs/design/kernel-proofs.md §1.2, §2.4).
#include "../proofs.h"

namespace proofs {

Error socket_file_facts(const char* path, const char* dir, SocketFacts* out) {
  out->listener_count = 0;
  out->listeners_truncated = false;
  out->listening_sockets = 0;  // nothing listens on a file that is not a socket
  Error e = lstat_facts(dir, &out->dir);
  if (failed(e)) {
    e.syscall = "lstat(dir)";
    return e;
  }
  e = lstat_facts(path, &out->file);
  if (failed(e)) {
    e.syscall = "lstat(path)";
    return e;
  }
  return ok();
}

}  // namespace proofs
