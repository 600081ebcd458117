// Stub (syntax check only, see README.md): the parts of Darwin's sys/socket.h the backend uses,
// transcribed from xnu bsd/sys/socket.h. Replaces glibc's: Darwin's sockaddr has sa_len and an
// 8-bit family, and SOL_SOCKET / SO_ACCEPTCONN have other values.
#pragma once

#include <stdint.h>
#include <sys/types.h>

typedef uint8_t sa_family_t;
typedef uint32_t socklen_t;

#define SOCK_STREAM 1
#define SOCK_DGRAM 2
#define SO_ACCEPTCONN 0x0002
#define SOL_SOCKET 0xffff
#define AF_UNIX 1
#define AF_LOCAL AF_UNIX
#define PF_LOCAL AF_LOCAL
#define PF_UNIX PF_LOCAL
#define SOCK_MAXADDRLEN 255

struct sockaddr {
  uint8_t sa_len;
  sa_family_t sa_family;
  char sa_data[14];
};

extern "C" {
int connect(int, const struct sockaddr*, socklen_t);
int getsockopt(int, int, int, void* __restrict, socklen_t* __restrict);
int socket(int, int, int);
}
