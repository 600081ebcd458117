// Is the file at a path still the image a process runs? (darwin.h image_replaced.) The process's
// LC_UUID comes from flavor 17 (p_uuid); the file's from its Mach-O load commands, in every slice
// of a universal file (xnu EXTERNAL_HEADERS/mach-o/loader.h, fat.h). A small cache keyed by the
// file's dev, inode, size, mtime and ctime keeps the parse off the common path: one stat per call.
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mutex>
#include <vector>

#include "darwin.h"

namespace proofs::darwin_backend {

namespace {

// Mach-O constants and layouts, transcribed from xnu EXTERNAL_HEADERS/mach-o/{loader,fat}.h.
constexpr uint32_t kMhMagic64 = 0xfeedfacf;  // MH_MAGIC_64, host (little-endian) order
constexpr uint32_t kFatMagic = 0xcafebabe;   // FAT_MAGIC, stored big-endian
constexpr uint32_t kLcUuid = 0x1b;           // LC_UUID
constexpr size_t kMachHeader64 = 32;         // sizeof(struct mach_header_64)
constexpr size_t kFatArch = 20;              // sizeof(struct fat_arch)
constexpr uint32_t kMaxCommands = 1 << 20;   // sizeofcmds we are willing to read

uint32_t le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}
uint32_t be32(const uint8_t* p) {
  return static_cast<uint32_t>(p[3]) | static_cast<uint32_t>(p[2]) << 8 |
         static_cast<uint32_t>(p[1]) << 16 | static_cast<uint32_t>(p[0]) << 24;
}

bool read_at(int fd, uint64_t offset, size_t n, std::vector<uint8_t>* out) {
  out->resize(n);
  size_t done = 0;
  while (done < n) {
    ssize_t got = pread(fd, out->data() + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += static_cast<size_t>(got);
  }
  return true;
}

// The LC_UUID of the 64-bit Mach-O image at `offset`, appended to *uuids.
void image_uuid(int fd, uint64_t offset, std::vector<std::vector<uint8_t>>* uuids) {
  std::vector<uint8_t> header;
  if (!read_at(fd, offset, kMachHeader64, &header) || le32(header.data()) != kMhMagic64) return;
  uint32_t ncmds = le32(header.data() + 16);
  uint32_t sizeofcmds = le32(header.data() + 20);
  if (sizeofcmds > kMaxCommands) return;
  std::vector<uint8_t> cmds;
  if (!read_at(fd, offset + kMachHeader64, sizeofcmds, &cmds)) return;
  size_t at = 0;
  for (uint32_t i = 0; i < ncmds && at + 8 <= cmds.size(); i++) {
    uint32_t cmd = le32(cmds.data() + at);
    uint32_t cmdsize = le32(cmds.data() + at + 4);
    if (cmdsize < 8 || at + cmdsize > cmds.size()) return;
    // struct uuid_command { uint32_t cmd, cmdsize; uint8_t uuid[16]; }
    if (cmd == kLcUuid && cmdsize >= 24) {
      uuids->emplace_back(cmds.begin() + static_cast<long>(at + 8),
                          cmds.begin() + static_cast<long>(at + 24));
      return;
    }
    at += cmdsize;
  }
}

// Every LC_UUID of the file (one per slice), or none when it cannot be read as Mach-O.
std::vector<std::vector<uint8_t>> file_uuids(int fd) {
  std::vector<std::vector<uint8_t>> uuids;
  std::vector<uint8_t> head;
  if (!read_at(fd, 0, 8, &head)) return uuids;
  if (be32(head.data()) == kFatMagic) {
    uint32_t n = be32(head.data() + 4);
    std::vector<uint8_t> archs;
    if (n == 0 || n > 64 || !read_at(fd, 8, n * kFatArch, &archs)) return uuids;
    for (uint32_t i = 0; i < n; i++) image_uuid(fd, be32(archs.data() + i * kFatArch + 8), &uuids);
  } else {
    image_uuid(fd, 0, &uuids);
  }
  return uuids;
}

struct Cached {
  dev_t dev;
  ino_t ino;
  off_t size;
  time_t mtime;
  time_t ctime;
  std::vector<std::vector<uint8_t>> uuids;
};

bool same_file(const Cached& c, const struct stat& st) {
  return c.dev == st.st_dev && c.ino == st.st_ino && c.size == st.st_size &&
         c.mtime == st.st_mtime && c.ctime == st.st_ctime;
}

}  // namespace

bool image_replaced(const char* path, const uint8_t uuid[16]) {
  static const uint8_t kNone[16] = {};
  if (memcmp(uuid, kNone, sizeof kNone) == 0) return false;  // no LC_UUID: cannot tell
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  static std::mutex lock;
  static std::vector<Cached> cache;  // a few entries, the oldest dropped
  std::vector<std::vector<uint8_t>> uuids;
  {
    std::lock_guard<std::mutex> guard(lock);
    for (const Cached& c : cache) {
      if (same_file(c, st)) uuids = c.uuids;
    }
  }
  if (uuids.empty()) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    uuids = file_uuids(fd);
    close(fd);
    if (uuids.empty()) return false;  // not Mach-O, or unreadable: cannot tell
    std::lock_guard<std::mutex> guard(lock);
    if (cache.size() == 8) cache.erase(cache.begin());
    cache.push_back(Cached{st.st_dev, st.st_ino, st.st_size, st.st_mtime, st.st_ctime, uuids});
  }
  for (const std::vector<uint8_t>& u : uuids) {
    if (memcmp(u.data(), uuid, 16) == 0) return false;
  }
  return true;
}

}  // namespace proofs::darwin_backend
