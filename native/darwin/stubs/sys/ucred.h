// Stub (syntax check only, see README.md): xnu bsd/sys/ucred.h, the external credential
// LOCAL_PEERCRED returns (filled by cru2x, bsd/kern/kern_prot.c).
#pragma once

#include <sys/param.h>
#include <sys/types.h>

struct xucred {
  u_int cr_version;          // structure layout version
  uid_t cr_uid;              // effective user id
  short cr_ngroups;          // number of advisory groups
  gid_t cr_groups[NGROUPS];  // advisory group list; cr_groups[0] is the effective gid
};
#define XUCRED_VERSION 0
