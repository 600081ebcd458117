// Stub (syntax check only, see README.md): xnu bsd/sys/sysctl.h names the backend uses.
// struct kinfo_proc is declared in part, with only the member the backend reads (kp_proc.p_stat):
// its size here means nothing (the backend asserts none for it; on macOS the SDK's full struct of
// extern_proc and eproc is used).
#pragma once

#include <stddef.h>
#include <sys/types.h>

#define CTL_KERN 1
#define KERN_ARGMAX 8
#define KERN_PROC 14
#define KERN_PROC_PID 1
#define KERN_PROCARGS2 49

struct extern_proc {
  char p_stat;  // S* process status (the only member declared here)
};
struct kinfo_proc {
  struct extern_proc kp_proc;  // struct eproc kp_eproc is not declared here
};

extern "C" {
int sysctl(int*, u_int, void*, size_t*, void*, size_t);
int sysctlbyname(const char*, void*, size_t*, void*, size_t);
}
