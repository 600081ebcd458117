// Helpers shared by the macOS backend files. Struct layouts are asserted at compile time against
// kernel-proofs.md §4 (sizes read from the macOS 12+ SDK, identical on arm64 and x86_64); the
// private flavor 17 struct is declared here because the public SDK lacks it (§1.1).
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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

// Classification in one place (kernel-proofs.md §1.4, psutil psutil_raise_for_pid): errno first,
// then "is the pid gone", then "is it a zombie".
Error classify(int err, const char* syscall, int32_t pid);
// proc_pidinfo(pid, 17). arg 0: zombies are not looked up (ESRCH). Returns errno (0 = ok).
int uniq_info(int32_t pid, ProcUniqIdentifierInfo* out);
// kern.bootsessionuuid, read once.
const char* boot_session();
void format_identity(uint64_t uniqueid, char* out);

}  // namespace proofs::darwin_backend
