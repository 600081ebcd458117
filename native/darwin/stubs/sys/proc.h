// Stub (syntax check only, see README.md): the process states of xnu bsd/sys/proc.h the backend
// compares with kinfo_proc's p_stat.
#pragma once

#define SIDL 1   // Process being created by fork.
#define SRUN 2   // Currently runnable.
#define SZOMB 5  // Awaiting collection by parent.
