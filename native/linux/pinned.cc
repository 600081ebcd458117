// The small cache of pinned processes declared in linux.h (see the comment on Pinned there).
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mutex>

#include "linux.h"

namespace proofs::linux_backend {

namespace {

std::mutex& mutex() {
  static std::mutex m;
  return m;
}

Pinned entries[kPinnedCapacity];
size_t count = 0;
uint64_t tick = 0;

}  // namespace

PinnedLock::PinnedLock() {
  mutex().lock();
}
PinnedLock::~PinnedLock() {
  mutex().unlock();
}

void pinned_close(Pinned* e) {
  if (e->pidfd >= 0) close(e->pidfd);
  if (e->dir >= 0) close(e->dir);
  if (e->stat_fd >= 0) close(e->stat_fd);
  e->pidfd = e->dir = e->stat_fd = -1;
}

Pinned* pinned_find(int32_t pid) {
  for (size_t i = 0; i < count; i++) {
    if (entries[i].pid == pid) {
      entries[i].used = ++tick;
      return &entries[i];
    }
  }
  return nullptr;
}

Pinned* pinned_insert(const Pinned& entry) {
  Pinned* slot = nullptr;
  if (count < kPinnedCapacity) {
    slot = &entries[count++];
  } else {
    slot = &entries[0];
    for (size_t i = 1; i < count; i++) {
      if (entries[i].used < slot->used) slot = &entries[i];
    }
    pinned_close(slot);
  }
  *slot = entry;
  slot->used = ++tick;
  return slot;
}

void pinned_evict(Pinned* e) {
  pinned_close(e);
  size_t i = static_cast<size_t>(e - entries);
  if (i < count - 1) entries[i] = entries[count - 1];
  count--;
}

int read_stat_fd(int stat_fd, StatFields* out) {
  char buf[1024];
  ssize_t n = pread(stat_fd, buf, sizeof buf - 1, 0);
  if (n < 0) return errno;
  if (n == 0) return ESRCH;
  buf[n] = '\0';
  return parse_stat(buf, out);
}

}  // namespace proofs::linux_backend
