// Stub (syntax check only, see README.md): the libproc structs and flavors of xnu
// bsd/sys/proc_info.h the backend uses, transcribed whole where the backend asserts their sizes
// and offsets (docs/design/kernel-proofs.md §4).
#pragma once

#include <netinet/in.h>
#include <stdint.h>
#include <sys/param.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

struct proc_bsdinfo {
  uint32_t pbi_flags;  // 64bit; emulated etc
  uint32_t pbi_status;
  uint32_t pbi_xstatus;
  uint32_t pbi_pid;
  uint32_t pbi_ppid;
  uid_t pbi_uid;
  gid_t pbi_gid;
  uid_t pbi_ruid;
  gid_t pbi_rgid;
  uid_t pbi_svuid;
  gid_t pbi_svgid;
  uint32_t rfu_1;  // reserved
  char pbi_comm[MAXCOMLEN];
  char pbi_name[2 * MAXCOMLEN];  // empty if no name is registered
  uint32_t pbi_nfiles;
  uint32_t pbi_pgid;
  uint32_t pbi_pjobc;
  uint32_t e_tdev;   // controlling tty dev
  uint32_t e_tpgid;  // tty process group id
  int32_t pbi_nice;
  uint64_t pbi_start_tvsec;
  uint64_t pbi_start_tvusec;
};

struct proc_bsdshortinfo {
  uint32_t pbsi_pid;     // process id
  uint32_t pbsi_ppid;    // process parent id
  uint32_t pbsi_pgid;    // process perp id
  uint32_t pbsi_status;  // p_stat value, SZOMB, SRUN, etc
  char pbsi_comm[MAXCOMLEN];
  uint32_t pbsi_flags;  // 64bit; emulated etc
  uid_t pbsi_uid;
  gid_t pbsi_gid;
  uid_t pbsi_ruid;
  gid_t pbsi_rgid;
  uid_t pbsi_svuid;
  gid_t pbsi_svgid;
  uint32_t pbsi_rfu;  // reserved for future use
};

#define PROC_FLAG_CONTROLT 0x80  // Has a controlling terminal

struct proc_fileinfo {
  uint32_t fi_openflags;
  uint32_t fi_status;
  off_t fi_offset;
  int32_t fi_type;
  uint32_t fi_guardflags;
};

// A copy of stat64 with static sized fields.
struct vinfo_stat {
  uint32_t vst_dev;
  uint16_t vst_mode;
  uint16_t vst_nlink;
  uint64_t vst_ino;
  uid_t vst_uid;
  gid_t vst_gid;
  int64_t vst_atime;
  int64_t vst_atimensec;
  int64_t vst_mtime;
  int64_t vst_mtimensec;
  int64_t vst_ctime;
  int64_t vst_ctimensec;
  int64_t vst_birthtime;
  int64_t vst_birthtimensec;
  off_t vst_size;
  int64_t vst_blocks;
  int32_t vst_blksize;
  uint32_t vst_flags;
  uint32_t vst_gen;
  uint32_t vst_rdev;
  int64_t vst_qspare[2];
};

struct vnode_info {
  struct vinfo_stat vi_stat;
  int vi_type;
  int vi_pad;
  fsid_t vi_fsid;  // Darwin's fsid_t is { int32_t val[2]; }, glibc's the same size and alignment
};

struct vnode_info_path {
  struct vnode_info vip_vi;
  char vip_path[MAXPATHLEN];  // tail end of it
};

struct proc_vnodepathinfo {
  struct vnode_info_path pvi_cdir;
  struct vnode_info_path pvi_rdir;
};

struct in4in6_addr {
  uint32_t i46a_pad32[3];
  struct in_addr i46a_addr4;
};

struct in_sockinfo {
  int insi_fport;  // foreign port
  int insi_lport;  // local port
  uint64_t insi_gencnt;
  uint32_t insi_flags;
  uint32_t insi_flow;
  uint8_t insi_vflag;   // ini_IPV4 or ini_IPV6
  uint8_t insi_ip_ttl;  // time to live proto
  uint32_t rfu_1;       // reserved
  union {
    struct in4in6_addr ina_46;
    struct in6_addr ina_6;
  } insi_faddr;
  union {
    struct in4in6_addr ina_46;
    struct in6_addr ina_6;
  } insi_laddr;
  struct {
    u_char in4_tos;
  } insi_v4;
  struct {
    uint8_t in6_hlim;
    int in6_cksum;
    u_short in6_ifindex;
    short in6_hops;
  } insi_v6;
};

#define TSI_T_NTIMERS 4

struct tcp_sockinfo {
  struct in_sockinfo tcpsi_ini;
  int tcpsi_state;
  int tcpsi_timer[TSI_T_NTIMERS];
  int tcpsi_mss;
  uint32_t tcpsi_flags;
  uint32_t rfu_1;
  uint64_t tcpsi_tp;
};

struct un_sockinfo {
  uint64_t unsi_conn_so;   // opaque handle of connected socket
  uint64_t unsi_conn_pcb;  // opaque handle of connected protocol control block
  union {
    struct sockaddr_un ua_sun;
    char ua_dummy[SOCK_MAXADDRLEN];
  } unsi_addr;  // bound address
  union {
    struct sockaddr_un ua_sun;
    char ua_dummy[SOCK_MAXADDRLEN];
  } unsi_caddr;  // address of socket connected to
};

#define IF_NAMESIZE 16    // bsd/net/if.h
#define MAX_KCTL_NAME 96  // bsd/sys/kern_control.h

struct ndrv_info {
  uint32_t ndrvsi_if_family;
  uint32_t ndrvsi_if_unit;
  char ndrvsi_if_name[IF_NAMESIZE];
};

struct kern_event_info {
  uint32_t kesi_vendor_code_filter;
  uint32_t kesi_class_filter;
  uint32_t kesi_subclass_filter;
};

struct kern_ctl_info {
  uint32_t kcsi_id;
  uint32_t kcsi_reg_unit;
  uint32_t kcsi_flags;
  uint32_t kcsi_recvbufsize;
  uint32_t kcsi_sendbufsize;
  uint32_t kcsi_unit;
  char kcsi_name[MAX_KCTL_NAME];
};

struct vsock_sockinfo {
  uint32_t local_cid;
  uint32_t local_port;
  uint32_t remote_cid;
  uint32_t remote_port;
};

struct sockbuf_info {
  uint32_t sbi_cc;
  uint32_t sbi_hiwat;
  uint32_t sbi_mbcnt;
  uint32_t sbi_mbmax;
  uint32_t sbi_lowat;
  short sbi_flags;
  short sbi_timeo;
};

enum {
  SOCKINFO_GENERIC = 0,
  SOCKINFO_IN = 1,
  SOCKINFO_TCP = 2,
  SOCKINFO_UN = 3,
  SOCKINFO_NDRV = 4,
  SOCKINFO_KERN_EVENT = 5,
  SOCKINFO_KERN_CTL = 6,
  SOCKINFO_VSOCK = 7,
};

struct socket_info {
  struct vinfo_stat soi_stat;
  uint64_t soi_so;   // opaque handle of socket
  uint64_t soi_pcb;  // opaque handle of protocol control block
  int soi_type;
  int soi_protocol;
  int soi_family;
  short soi_options;
  short soi_linger;
  short soi_state;
  short soi_qlen;
  short soi_incqlen;
  short soi_qlimit;
  short soi_timeo;
  u_short soi_error;
  uint32_t soi_oobmark;
  struct sockbuf_info soi_rcv;
  struct sockbuf_info soi_snd;
  int soi_kind;
  uint32_t rfu_1;  // reserved
  union {
    struct in_sockinfo pri_in;
    struct tcp_sockinfo pri_tcp;
    struct un_sockinfo pri_un;
    struct ndrv_info pri_ndrv;
    struct kern_event_info pri_kern_event;
    struct kern_ctl_info pri_kern_ctl;
    struct vsock_sockinfo pri_vsock;
  } soi_proto;
};

struct socket_fdinfo {
  struct proc_fileinfo pfi;
  struct socket_info psi;
};

#define PROX_FDTYPE_SOCKET 2

struct proc_fdinfo {
  int32_t proc_fd;
  uint32_t proc_fdtype;
};

// proc_listpids types (bsd/sys/proc_info.h): PROC_UID_ONLY matches the effective uid.
#define PROC_ALL_PIDS 1
#define PROC_UID_ONLY 4

#define PROC_PIDLISTFDS 1
#define PROC_PIDLISTFD_SIZE (sizeof(struct proc_fdinfo))
#define PROC_PIDTBSDINFO 3
#define PROC_PIDTBSDINFO_SIZE (sizeof(struct proc_bsdinfo))
#define PROC_PIDVNODEPATHINFO 9
#define PROC_PIDVNODEPATHINFO_SIZE (sizeof(struct proc_vnodepathinfo))
#define PROC_PIDPATHINFO 11
#define PROC_PIDPATHINFO_SIZE (MAXPATHLEN)
#define PROC_PIDPATHINFO_MAXSIZE (4 * MAXPATHLEN)
#define PROC_PIDT_SHORTBSDINFO 13
#define PROC_PIDT_SHORTBSDINFO_SIZE (sizeof(struct proc_bsdshortinfo))

// proc_pidfdinfo flavors
#define PROC_PIDFDSOCKETINFO 3
#define PROC_PIDFDSOCKETINFO_SIZE (sizeof(struct socket_fdinfo))
