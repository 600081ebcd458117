// Stub (syntax check only, see README.md): glibc's stdlib.h plus what Darwin's adds and the
// backend uses. Libc include/stdlib.h: devname_r.
#pragma once

#include_next <stdlib.h>

#include <sys/types.h>

extern "C" char* devname_r(dev_t dev, mode_t type, char* buf, int len);
