// Fact structs of proofs.h -> plain JS values (binding.h). One function per exported call: check
// the arguments (binding.cc), call the backend, convert the result. lib/kernel/binding.ts types
// this surface and parses every result again.
#include <cstring>
#include <string>

#include "binding.h"

namespace binding {

namespace {

Napi::Value nullable_string(Napi::Env env, bool has, const char* s) {
  return has ? Napi::Value(Napi::String::New(env, s)) : env.Null();
}

// 64-bit kernel numbers travel as decimal strings, never as doubles (lib/kernel/types.ts).
Napi::String decimal(Napi::Env env, uint64_t v) {
  return Napi::String::New(env, std::to_string(v));
}

// flock(fd, "ex" | "sh" | "un", nonBlocking) -> boolean (false = would block). Exported raw for
// the grok simulator's process.dlopen and the delivery journal.
Napi::Value Flock(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = fd_arg(info, 0);
  if (info.Length() < 3 || !info[1].IsString() || !info[2].IsBoolean()) {
    throw_usage(env, "flock", "flock(fd, op, nonBlocking)");
  }
  std::string op = info[1].As<Napi::String>().Utf8Value();
  proofs::LockOp lock_op;
  if (op == "ex") {
    lock_op = proofs::LockOp::kExclusive;
  } else if (op == "sh") {
    lock_op = proofs::LockOp::kShared;
  } else if (op == "un") {
    lock_op = proofs::LockOp::kUnlock;
  } else {
    throw_usage(env, "flock", "op must be ex, sh or un");
  }
  bool acquired = false;
  check(env, proofs::flock_fd(fd, lock_op, info[2].As<Napi::Boolean>().Value(), &acquired));
  return Napi::Boolean::New(env, acquired);
}

// processFacts(pid, numbers: Float64Array(7)) -> "executable\0cwd\0tty\0identity".
// This is the hot call (docs/design/kernel-proofs.md §5 "single-pid calls are microseconds"): the
// numbers go into the caller's typed array and the four strings travel as one, because creating a
// JS array or object and setting its elements one Node-API call at a time cost more than the kernel
// reads it wraps (scripts/bench/kernel.bench.ts). lib/kernel/binding.ts names the slots:
//   numbers = [pid, ppid, uid, euid, startTimeUs, startTimePrecisionUs, flags]
//   flags   = 1 has executable | 2 executable deleted | 4 has cwd | 8 has tty | identityKind << 4
// Paths cannot contain NUL, so the separator is unambiguous.
constexpr size_t kProcessNumbers = 7;

Napi::Value ProcessFacts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int32_t pid = pid_arg(info, 0);
  if (info.Length() < 2 || !info[1].IsTypedArray() ||
      info[1].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array ||
      info[1].As<Napi::TypedArray>().ElementLength() < kProcessNumbers) {
    throw_usage(env, "numbers", "processFacts needs a Float64Array of at least 7 elements");
  }
  double* numbers = info[1].As<Napi::Float64Array>().Data();
  static thread_local proofs::ProcessFacts f;  // ~8 KiB: keep it off the stack, reuse it
  check(env, proofs::process_facts(pid, &f));
  numbers[0] = f.pid;
  numbers[1] = f.ppid;
  numbers[2] = f.uid;
  numbers[3] = f.euid;
  // Epoch µs fits a double exactly until the year 2255 (2^53 µs).
  numbers[4] = static_cast<double>(f.start_time_us);
  numbers[5] = static_cast<double>(f.start_time_precision_us);
  numbers[6] = (f.has_executable ? 1 : 0) | (f.executable_deleted ? 2 : 0) | (f.has_cwd ? 4 : 0) |
               (f.has_tty ? 8 : 0) | (static_cast<int>(f.identity_kind) << 4);
  static thread_local char
      joined[sizeof f.executable + sizeof f.cwd + sizeof f.tty + sizeof f.identity + 4];
  size_t at = 0;
  auto append = [&](bool has, const char* s, size_t cap, bool separator) {
    size_t n = has ? strnlen(s, cap) : 0;
    memcpy(joined + at, s, n);
    at += n;
    if (separator) joined[at++] = '\0';
  };
  append(f.has_executable, f.executable, sizeof f.executable, true);
  append(f.has_cwd, f.cwd, sizeof f.cwd, true);
  append(f.has_tty, f.tty, sizeof f.tty, true);
  append(true, f.identity, sizeof f.identity, false);
  napi_value out;
  napi_create_string_utf8(env, joined, at, &out);
  return Napi::Value(env, out);
}

const char* file_type(proofs::FileType t) {
  switch (t) {
    case proofs::FileType::kSocket:
      return "socket";
    case proofs::FileType::kFile:
      return "file";
    case proofs::FileType::kDirectory:
      return "directory";
    case proofs::FileType::kSymlink:
      return "symlink";
    case proofs::FileType::kFifo:
      return "fifo";
    case proofs::FileType::kChar:
      return "char";
    case proofs::FileType::kBlock:
      return "block";
    case proofs::FileType::kOther:
      return "other";
  }
  return "other";
}

Napi::Object path_facts(Napi::Env env, const proofs::PathFacts& p) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("type", Napi::String::New(env, file_type(p.type)));
  o.Set("inode", decimal(env, p.inode));
  o.Set("device", decimal(env, p.device));
  o.Set("uid", Napi::Number::New(env, p.uid));
  o.Set("mode", Napi::Number::New(env, p.mode));
  return o;
}

// socketFacts(path, dir, pid | null, allUsers): with a pid, only that process's fds are read;
// without, a scan of our euid's processes, or of every process when allUsers.
Napi::Value SocketFacts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string path = path_arg(info, 0, proofs::sun_path_max(), "socket path");
  std::string dir = path_arg(info, 1, proofs::kPathCapacity - 1, "socket dir");
  int32_t pid = absent(info, 2) ? 0 : pid_arg(info, 2);
  if (info.Length() < 4 || !info[3].IsBoolean()) {
    throw_usage(env, "allUsers", "socketFacts needs allUsers as a boolean");
  }
  bool all_users = info[3].As<Napi::Boolean>().Value();
  static thread_local proofs::SocketFacts f;
  check(env, proofs::socket_facts(path.c_str(), dir.c_str(), pid, all_users, &f));
  Napi::Object o = Napi::Object::New(env);
  o.Set("file", path_facts(env, f.file));
  o.Set("dir", path_facts(env, f.dir));
  Napi::Array listeners = Napi::Array::New(env, f.listener_count);
  for (size_t i = 0; i < f.listener_count; i++) {
    listeners.Set(static_cast<uint32_t>(i), Napi::Number::New(env, f.listeners[i]));
  }
  o.Set("listeners", listeners);
  o.Set("listenersTruncated", Napi::Boolean::New(env, f.listeners_truncated));
  o.Set("listeningSockets", f.listening_sockets < 0
                                ? env.Null()
                                : Napi::Number::New(env, f.listening_sockets).As<Napi::Value>());
  return o;
}

const char* peer_method(proofs::PeerMethod m) {
  switch (m) {
    case proofs::PeerMethod::kSoPeerPidfd:
      return "SO_PEERPIDFD";
    case proofs::PeerMethod::kSoPeerCred:
      return "SO_PEERCRED";
    case proofs::PeerMethod::kLocalPeerToken:
      return "LOCAL_PEERTOKEN";
  }
  return "SO_PEERCRED";
}

Napi::Value PeerCredentials(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = fd_arg(info, 0);
  proofs::PeerCredentials c;
  check(env, proofs::peer_credentials(fd, &c));
  Napi::Object o = Napi::Object::New(env);
  o.Set("pid", Napi::Number::New(env, c.pid));
  o.Set("uid", Napi::Number::New(env, c.uid));
  o.Set("gid", Napi::Number::New(env, c.gid));
  o.Set("method", Napi::String::New(env, peer_method(c.method)));
  o.Set("identityKind", c.has_identity
                            ? Napi::Value(Napi::String::New(env, identity_kind(c.identity_kind)))
                            : env.Null());
  o.Set("identity", nullable_string(env, c.has_identity, c.identity));
  return o;
}

Napi::Value PeerSocketFile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = fd_arg(info, 0);
  proofs::PeerSocketFile p;
  check(env, proofs::peer_socket_file(fd, &p));
  Napi::Object o = Napi::Object::New(env);
  o.Set("ownSocketInode", decimal(env, p.own_socket_inode));
  o.Set("peerSocketInode", decimal(env, p.peer_socket_inode));
  o.Set("device", p.has_file ? Napi::Value(decimal(env, p.device)) : env.Null());
  o.Set("inode32", p.has_file ? Napi::Value(Napi::Number::New(env, p.inode32)) : env.Null());
  return o;
}

Napi::Value KernelInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  proofs::KernelInfo k;
  check(env, proofs::kernel_info(&k));
  Napi::Object o = Napi::Object::New(env);
  o.Set("platform", Napi::String::New(env, k.platform));
  o.Set("release", Napi::String::New(env, k.release));
  o.Set("bootId", Napi::String::New(env, k.boot_id));
  o.Set("pidfsIdentity", Napi::Boolean::New(env, k.pidfs_identity));
  o.Set("peerPidfd", Napi::Boolean::New(env, k.peer_pidfd));
  o.Set("sunPathMax", Napi::Number::New(env, k.sun_path_max));
  return o;
}

// argv as an array of strings (macOS; Linux answers UNSUPPORTED, lib/kernel reads /proc there).
Napi::Value ProcessArgv(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int32_t pid = pid_arg(info, 0);
  proofs::ProcessArgv a;
  check(env, proofs::process_argv(pid, &a));
  Napi::Array out = Napi::Array::New(env, a.argv.size());
  for (size_t i = 0; i < a.argv.size(); i++) {
    out.Set(static_cast<uint32_t>(i), Napi::String::New(env, a.argv[i]));
  }
  return out;
}

}  // namespace

void init_facts(Napi::Env env, Napi::Object exports) {
  exports.Set("socketFacts", Napi::Function::New(env, SocketFacts, "socketFacts"));
  exports.Set("peerCredentials", Napi::Function::New(env, PeerCredentials, "peerCredentials"));
  exports.Set("peerSocketFile", Napi::Function::New(env, PeerSocketFile, "peerSocketFile"));
  exports.Set("flock", Napi::Function::New(env, Flock, "flock"));
  exports.Set("processFacts", Napi::Function::New(env, ProcessFacts, "processFacts"));
  exports.Set("kernelInfo", Napi::Function::New(env, KernelInfo, "kernelInfo"));
  exports.Set("processArgv", Napi::Function::New(env, ProcessArgv, "processArgv"));
}

}  // namespace binding
