// Stub (syntax check only, see README.md): glibc's sys/param.h with Darwin's values where they
// differ (xnu bsd/sys/param.h, bsd/sys/syslimits.h): MAXPATHLEN = PATH_MAX = 1024, MAXCOMLEN 16,
// NGROUPS = NGROUPS_MAX = 16. NODEV is (dev_t)(-1) in both.
#pragma once

#include_next <sys/param.h>

#undef MAXPATHLEN
#define MAXPATHLEN 1024
#undef MAXCOMLEN
#define MAXCOMLEN 16
#undef NGROUPS
#define NGROUPS 16
