// Stub (syntax check only, see README.md): the kqueue parts of xnu bsd/sys/event.h the backend
// uses.
#pragma once

#include <stdint.h>
#include <time.h>

#pragma pack(4)
struct kevent {
  uintptr_t ident;  // identifier for this event
  int16_t filter;   // filter for event
  uint16_t flags;   // general flags
  uint32_t fflags;  // filter-specific flags
  intptr_t data;    // filter-specific data
  void* udata;      // opaque user data identifier
};
#pragma pack()

#define EV_SET(kevp, a, b, c, d, e, f) \
  do {                                 \
    struct kevent* __kevp__ = (kevp);  \
    __kevp__->ident = (a);             \
    __kevp__->filter = (b);            \
    __kevp__->flags = (c);             \
    __kevp__->fflags = (d);            \
    __kevp__->data = (e);              \
    __kevp__->udata = (f);             \
  } while (0)

#define EVFILT_PROC (-5)
#define EV_ADD 0x0001
#define EV_ENABLE 0x0004
#define EV_ONESHOT 0x0010
#define NOTE_EXIT 0x80000000

extern "C" {
int kqueue(void);
int kevent(int kq, const struct kevent* changelist, int nchanges, struct kevent* eventlist,
           int nevents, const struct timespec* timeout);
}
