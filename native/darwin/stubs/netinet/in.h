// Stub (syntax check only, see README.md): the address structs xnu bsd/netinet/in.h and
// bsd/netinet6/in6.h declare, as proc_info.h's in_sockinfo embeds them.
#pragma once

#include <stdint.h>

typedef uint32_t in_addr_t;
struct in_addr {
  in_addr_t s_addr;
};
typedef struct in6_addr {
  union {
    uint8_t __u6_addr8[16];
    uint16_t __u6_addr16[8];
    uint32_t __u6_addr32[4];
  } __u6_addr;  // 128-bit IP6 address
} in6_addr_t;
