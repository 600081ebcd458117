// Stub (syntax check only, see README.md): the libproc calls the backend uses, from xnu
// libsyscall/wrappers/libproc/libproc.h. Each returns 0 with errno set on failure, else the
// number of bytes written (pids for proc_listallpids).
#pragma once

#include <mach/message.h>
#include <stdint.h>
#include <sys/param.h>
#include <sys/proc_info.h>
#include <sys/types.h>

extern "C" {
int proc_listallpids(void* buffer, int buffersize);
int proc_listpids(uint32_t type, uint32_t typeinfo, void* buffer, int buffersize);
int proc_pidinfo(int pid, int flavor, uint64_t arg, void* buffer, int buffersize);
int proc_pidfdinfo(int pid, int fd, int flavor, void* buffer, int buffersize);
int proc_pidpath(int pid, void* buffer, uint32_t buffersize);
int proc_signal_with_audittoken(audit_token_t* audittoken, int sig);
}
