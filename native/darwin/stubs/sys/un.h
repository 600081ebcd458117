// Stub (syntax check only, see README.md): xnu bsd/sys/un.h. Replaces glibc's: Darwin's
// sockaddr_un has sun_len and a 104-byte sun_path (106 bytes in all).
#pragma once

#include <sys/socket.h>

struct sockaddr_un {
  unsigned char sun_len;  // sockaddr len including null
  sa_family_t sun_family;
  char sun_path[104];
};

#define SOL_LOCAL 0
#define LOCAL_PEERCRED 0x001
#define LOCAL_PEERPID 0x002
#define LOCAL_PEEREPID 0x003
#define LOCAL_PEERUUID 0x004
#define LOCAL_PEEREUUID 0x005
#define LOCAL_PEERTOKEN 0x006
