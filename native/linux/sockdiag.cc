// sock_diag for AF_UNIX (docs/design/kernel-proofs.md §2.4): which listening sockets are bound to a
// file (UDIAG_SHOW_VFS), and which file the peer of a connected socket is bound to
// (UDIAG_SHOW_PEER). Needs no privilege. Pitfalls handled here: udiag_vfs_dev is the kernel's
// major<<20|minor encoding, and udiag_vfs_ino carries only the low 32 bits of the inode.
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "linux.h"

namespace proofs::linux_backend {

namespace {

constexpr uint8_t kTcpEstablished = 1;  // include/net/tcp_states.h TCP_ESTABLISHED
constexpr uint32_t kTcpListen = 10;     // include/net/tcp_states.h TCP_LISTEN

struct Netlink {
  int fd;
  Netlink() : fd(socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) {}
  ~Netlink() {
    if (fd >= 0) close(fd);
  }
  Netlink(const Netlink&) = delete;
  Netlink& operator=(const Netlink&) = delete;
};

Error send_request(int fd, uint16_t flags, uint32_t states, uint32_t ino, uint32_t show) {
  struct {
    nlmsghdr nlh;
    unix_diag_req req;
  } msg;
  memset(&msg, 0, sizeof msg);
  msg.nlh.nlmsg_len = sizeof msg;
  msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  msg.nlh.nlmsg_flags = static_cast<uint16_t>(NLM_F_REQUEST | flags);
  msg.req.sdiag_family = AF_UNIX;
  msg.req.udiag_states = states;
  msg.req.udiag_ino = ino;
  msg.req.udiag_show = show;
  // An exact lookup by inode needs the cookie or "no cookie" (INET_DIAG_NOCOOKIE = ~0, ~0).
  msg.req.udiag_cookie[0] = ~0u;
  msg.req.udiag_cookie[1] = ~0u;
  sockaddr_nl addr;
  memset(&addr, 0, sizeof addr);
  addr.nl_family = AF_NETLINK;
  if (sendto(fd, &msg, sizeof msg, 0, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) {
    return Error{Failure::kSyscallFailed, errno, "sendto(sock_diag)", -1};
  }
  return ok();
}

// Calls visit(msg, attrs) for every unix_diag_msg until NLMSG_DONE (dump) or one reply (exact).
template <typename Visit>
Error receive(int fd, bool dump, Visit visit) {
  alignas(nlmsghdr) static thread_local char buf[32768];
  for (;;) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{Failure::kSyscallFailed, errno, "recv(sock_diag)", -1};
    }
    int len = static_cast<int>(n);
    for (nlmsghdr* h = reinterpret_cast<nlmsghdr*>(buf); NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
      if (h->nlmsg_type == NLMSG_DONE) return ok();
      if (h->nlmsg_type == NLMSG_ERROR) {
        const nlmsgerr* e = static_cast<const nlmsgerr*>(NLMSG_DATA(h));
        int err = -e->error;
        if (err == 0) return ok();
        // ENOENT on an exact lookup: no socket with that inode (any more).
        return Error{Failure::kSyscallFailed, err, "sock_diag", -1};
      }
      if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY) continue;
      const unix_diag_msg* m = static_cast<const unix_diag_msg*>(NLMSG_DATA(h));
      int attr_len = static_cast<int>(h->nlmsg_len - NLMSG_LENGTH(sizeof *m));
      const rtattr* attr = reinterpret_cast<const rtattr*>(m + 1);
      visit(m, attr, attr_len);
      if (!dump) return ok();
    }
  }
}

}  // namespace

uint64_t user_dev_from_kernel(uint32_t kdev) {
  // include/linux/kdev_t.h: MAJOR = dev >> 20, MINOR = dev & 0xfffff.
  return static_cast<uint64_t>(makedev(kdev >> 20, kdev & 0xfffff));
}

Error listening_socket_inodes(uint64_t file_dev, uint64_t file_ino, uint64_t* out, size_t cap,
                              size_t* count) {
  *count = 0;
  Netlink nl;
  if (nl.fd < 0) return Error{Failure::kUnsupported, errno, "socket(NETLINK_SOCK_DIAG)", -1};
  Error e = send_request(nl.fd, NLM_F_DUMP, 1u << kTcpListen, 0, UDIAG_SHOW_VFS);
  if (failed(e)) return e;
  const uint32_t ino32 = static_cast<uint32_t>(file_ino);
  return receive(nl.fd, true, [&](const unix_diag_msg* m, const rtattr* attr, int len) {
    for (; RTA_OK(attr, len); attr = RTA_NEXT(attr, len)) {
      if (attr->rta_type != UNIX_DIAG_VFS || RTA_PAYLOAD(attr) < sizeof(unix_diag_vfs)) continue;
      const unix_diag_vfs* vfs = static_cast<const unix_diag_vfs*>(RTA_DATA(attr));
      if (vfs->udiag_vfs_ino == ino32 && user_dev_from_kernel(vfs->udiag_vfs_dev) == file_dev &&
          *count < cap) {
        out[(*count)++] = m->udiag_ino;
      }
    }
  });
}

int open_sock_diag() {
  return socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
}

Error listens_on_file(int nl_fd, uint64_t sock_ino, uint64_t file_dev, uint64_t file_ino,
                      bool* yes) {
  *yes = false;
  Error e =
      send_request(nl_fd, 0, 1u << kTcpListen, static_cast<uint32_t>(sock_ino), UDIAG_SHOW_VFS);
  if (failed(e)) return e;
  const uint32_t ino32 = static_cast<uint32_t>(file_ino);
  e = receive(nl_fd, false, [&](const unix_diag_msg* m, const rtattr* attr, int len) {
    // An exact lookup answers whatever state the socket is in: the states mask filters dumps only.
    if (m->udiag_state != kTcpListen) return;
    for (; RTA_OK(attr, len); attr = RTA_NEXT(attr, len)) {
      if (attr->rta_type != UNIX_DIAG_VFS || RTA_PAYLOAD(attr) < sizeof(unix_diag_vfs)) continue;
      const unix_diag_vfs* vfs = static_cast<const unix_diag_vfs*>(RTA_DATA(attr));
      *yes = vfs->udiag_vfs_ino == ino32 && user_dev_from_kernel(vfs->udiag_vfs_dev) == file_dev;
    }
  });
  // ENOENT: not a unix socket of this network namespace (an inet socket), or closed meanwhile.
  if (failed(e) && e.err == ENOENT) return ok();
  return e;
}

Error peer_of(uint64_t own_ino, uint64_t* peer_ino) {
  Netlink nl;
  if (nl.fd < 0) return Error{Failure::kUnsupported, errno, "socket(NETLINK_SOCK_DIAG)", -1};
  Error e = send_request(nl.fd, 0, ~0u, static_cast<uint32_t>(own_ino), UDIAG_SHOW_PEER);
  if (failed(e)) return e;
  *peer_ino = 0;
  uint8_t state = 0;
  e = receive(nl.fd, false, [&](const unix_diag_msg* m, const rtattr* attr, int len) {
    state = m->udiag_state;
    for (; RTA_OK(attr, len); attr = RTA_NEXT(attr, len)) {
      if (attr->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(attr) >= sizeof(uint32_t)) {
        memcpy(peer_ino, RTA_DATA(attr), sizeof(uint32_t));
      }
    }
  });
  if (failed(e)) return e;
  if (*peer_ino == 0) {
    // A connected client whose connection the server has not accept()ed yet: the peer is an
    // embryo socket without an inode (sock_i_ino() = 0), so there is nothing to look up yet.
    if (state == kTcpEstablished) {
      return Error{Failure::kSyscallFailed, EAGAIN, "sock_diag(UNIX_DIAG_PEER): not accepted yet",
                   -1};
    }
    return Error{Failure::kSyscallFailed, ENOTCONN, "sock_diag(UNIX_DIAG_PEER)", -1};
  }
  return ok();
}

Error bound_file_of(uint64_t sock_ino, bool* has_file, uint64_t* dev, uint32_t* ino32) {
  Netlink nl;
  if (nl.fd < 0) return Error{Failure::kUnsupported, errno, "socket(NETLINK_SOCK_DIAG)", -1};
  Error e = send_request(nl.fd, 0, ~0u, static_cast<uint32_t>(sock_ino), UDIAG_SHOW_VFS);
  if (failed(e)) return e;
  *has_file = false;
  return receive(nl.fd, false, [&](const unix_diag_msg*, const rtattr* attr, int len) {
    for (; RTA_OK(attr, len); attr = RTA_NEXT(attr, len)) {
      if (attr->rta_type != UNIX_DIAG_VFS || RTA_PAYLOAD(attr) < sizeof(unix_diag_vfs)) continue;
      const unix_diag_vfs* vfs = static_cast<const unix_diag_vfs*>(RTA_DATA(attr));
      *has_file = true;
      *dev = user_dev_from_kernel(vfs->udiag_vfs_dev);
      *ino32 = vfs->udiag_vfs_ino;
    }
  });
}

}  // namespace proofs::linux_backend
