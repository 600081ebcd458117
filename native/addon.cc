// N-API glue, and the only file that includes napi.h (style.md "layout"): argument checks become
// typed usage errors (code INVALID_ARGUMENT), result structs become plain JS objects, and a
// proofs::Error becomes an Error with { code, pid, syscall, errno }. Everything is interpreted
// and validated again in lib/kernel/ (the addon is outside bytes too).
#include <napi.h>
#include <uv.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "proofs.h"

namespace {

using proofs::Error;
using proofs::Failure;

const char* failure_code(Failure f) {
  switch (f) {
    case Failure::kNone:
      return "OK";
    case Failure::kNoSuchProcess:
      return "NO_SUCH_PROCESS";
    case Failure::kAccessDenied:
      return "ACCESS_DENIED";
    case Failure::kZombie:
      return "ZOMBIE";
    case Failure::kUnsupported:
      return "UNSUPPORTED";
    case Failure::kSyscallFailed:
      return "SYSCALL_FAILED";
    case Failure::kInvalidArgument:
      return "INVALID_ARGUMENT";
  }
  return "SYSCALL_FAILED";
}

[[noreturn]] void throw_error(Napi::Env env, const Error& e, const char* detail = nullptr) {
  std::string message = std::string(failure_code(e.code)) + ": " + e.syscall;
  if (e.pid > 0) message += " for pid " + std::to_string(e.pid);
  if (e.err != 0) message += " failed: " + std::string(strerror(e.err));
  if (detail != nullptr) message += std::string(" (") + detail + ")";
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("code", Napi::String::New(env, failure_code(e.code)));
  error.Set("pid", e.pid > 0 ? Napi::Value(Napi::Number::New(env, e.pid)) : env.Null());
  error.Set("syscall", Napi::String::New(env, e.syscall));
  error.Set("errno", Napi::Number::New(env, e.err));
  throw error;
}

[[noreturn]] void throw_usage(Napi::Env env, const char* what, const char* message) {
  throw_error(env, Error{Failure::kInvalidArgument, 0, what, -1}, message);
}

void check(Napi::Env env, const Error& e) {
  if (proofs::failed(e)) throw_error(env, e);
}

// A pid is a positive integer that fits pid_t; anything else is the caller's mistake.
int32_t pid_arg(const Napi::CallbackInfo& info, size_t i) {
  Napi::Env env = info.Env();
  if (info.Length() <= i || !info[i].IsNumber()) throw_usage(env, "pid", "pid must be a number");
  double d = info[i].As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d) || std::trunc(d) != d || d <= 0 || d > 2147483647.0) {
    throw_usage(env, "pid", "pid must be an integer in 1..2^31-1");
  }
  return static_cast<int32_t>(d);
}

int fd_arg(const Napi::CallbackInfo& info, size_t i) {
  Napi::Env env = info.Env();
  if (info.Length() <= i || !info[i].IsNumber()) throw_usage(env, "fd", "fd must be a number");
  double d = info[i].As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d) || std::trunc(d) != d || d < 0 || d > 2147483647.0) {
    throw_usage(env, "fd", "fd must be a non-negative integer");
  }
  return static_cast<int>(d);
}

Napi::Value nullable_string(Napi::Env env, bool has, const char* s) {
  return has ? Napi::Value(Napi::String::New(env, s)) : env.Null();
}

const char* identity_kind(proofs::IdentityKind k) {
  switch (k) {
    case proofs::IdentityKind::kLinuxPidfs:
      return "linux-pidfs";
    case proofs::IdentityKind::kLinuxBootTicks:
      return "linux-boot-ticks";
    case proofs::IdentityKind::kDarwinUniqueId:
      return "darwin-uniqueid";
  }
  return "linux-boot-ticks";
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

// processFacts(pid) -> [pid, ppid, uid, euid, executable|null, executableDeleted, cwd|null,
// tty|null, startTimeUs, startTimePrecisionUs, identityKind, identity]. A flat array, not an
// object: this is the hot call (kernel-proofs.md §5 "single-pid calls are microseconds"), and
// setting 12 named properties cost more than the kernel reads it wraps. lib/kernel/process.ts
// names the fields.
Napi::Value ProcessFacts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int32_t pid = pid_arg(info, 0);
  static thread_local proofs::ProcessFacts f;  // ~8 KiB: keep it off the stack, reuse it
  check(env, proofs::process_facts(pid, &f));
  napi_value out;
  napi_create_array_with_length(env, 12, &out);
  napi_value v[12];
  napi_create_int32(env, f.pid, &v[0]);
  napi_create_int32(env, f.ppid, &v[1]);
  napi_create_uint32(env, f.uid, &v[2]);
  napi_create_uint32(env, f.euid, &v[3]);
  v[4] = nullable_string(env, f.has_executable, f.executable);
  napi_get_boolean(env, f.executable_deleted, &v[5]);
  v[6] = nullable_string(env, f.has_cwd, f.cwd);
  v[7] = nullable_string(env, f.has_tty, f.tty);
  // Epoch µs fits a double exactly until the year 2255 (2^53 µs).
  napi_create_double(env, static_cast<double>(f.start_time_us), &v[8]);
  napi_create_double(env, static_cast<double>(f.start_time_precision_us), &v[9]);
  napi_create_string_utf8(env, identity_kind(f.identity_kind), NAPI_AUTO_LENGTH, &v[10]);
  napi_create_string_utf8(env, f.identity, NAPI_AUTO_LENGTH, &v[11]);
  for (uint32_t i = 0; i < 12; i++) napi_set_element(env, out, i, v[i]);
  return Napi::Value(env, out);
}

// A path argument: a non-empty string without NUL bytes, at most max_bytes long in UTF-8.
std::string path_arg(const Napi::CallbackInfo& info, size_t i, size_t max_bytes, const char* what) {
  Napi::Env env = info.Env();
  if (info.Length() <= i || !info[i].IsString()) throw_usage(env, what, "path must be a string");
  std::string s = info[i].As<Napi::String>().Utf8Value();
  if (s.empty()) throw_usage(env, what, "path must not be empty");
  if (s.find('\0') != std::string::npos) throw_usage(env, what, "path must not contain NUL");
  if (s.size() > max_bytes) throw_usage(env, what, "path is longer than sun_path allows");
  return s;
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

// 64-bit kernel numbers travel as decimal strings, never as doubles (lib/kernel/types.ts).
Napi::String decimal(Napi::Env env, uint64_t v) {
  return Napi::String::New(env, std::to_string(v));
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

Napi::Value SocketFacts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string path = path_arg(info, 0, proofs::sun_path_max(), "socket path");
  std::string dir = path_arg(info, 1, proofs::kPathCapacity - 1, "socket dir");
  static thread_local proofs::SocketFacts f;
  check(env, proofs::socket_facts(path.c_str(), dir.c_str(), &f));
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

// A process handle. Exit is observed with a uv_poll on the backend's exit fd (the pidfd on
// Linux, a kqueue with EVFILT_PROC NOTE_EXIT on macOS): no thread, no kill(pid, 0) polling. While
// an exit watch is active the poll keeps the event loop alive, like a ChildProcess; close() or the
// exit releases it.
class Handle : public Napi::ObjectWrap<Handle> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    Napi::Function ctor =
        DefineClass(env, "ProcessHandle",
                    {
                        InstanceMethod("signal", &Handle::Signal),
                        InstanceMethod("isAlive", &Handle::IsAlive),
                        InstanceMethod("watchExit", &Handle::WatchExit),
                        InstanceMethod("close", &Handle::Close),
                        InstanceAccessor("pid", &Handle::Pid, nullptr),
                        InstanceAccessor("identityKind", &Handle::IdentityKind, nullptr),
                        InstanceAccessor("identity", &Handle::Identity, nullptr),
                    });
    // Per environment (main thread and each worker), never a process-wide static.
    env.SetInstanceData<Napi::FunctionReference>(
        new Napi::FunctionReference(Napi::Persistent(ctor)));
    exports.Set("openProcessHandle", Napi::Function::New(env, Open, "openProcessHandle"));
  }

  explicit Handle(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Handle>(info) {
    Napi::Env env = info.Env();
    int32_t pid = pid_arg(info, 0);
    std::string expected;
    bool has_expected = info.Length() > 1 && info[1].IsString();
    if (has_expected) expected = info[1].As<Napi::String>().Utf8Value();
    check(env, proofs::handle_open(pid, has_expected ? expected.c_str() : nullptr, &h_));
    open_ = true;
  }

  ~Handle() override {
    StopWatch(false);
    if (open_) proofs::handle_close(&h_);
  }

 private:
  // openProcessHandle(pid, expectedIdentity | null) -> ProcessHandle
  static Napi::Value Open(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    pid_arg(info, 0);
    if (info.Length() > 1 && !info[1].IsString() && !info[1].IsNull() && !info[1].IsUndefined()) {
      throw_usage(env, "expectedIdentity", "expectedIdentity must be a string or null");
    }
    std::vector<napi_value> args = {info[0]};
    if (info.Length() > 1) args.push_back(info[1]);
    return env.GetInstanceData<Napi::FunctionReference>()->New(args);
  }

  void EnsureOpen(Napi::Env env) {
    if (!open_) throw_usage(env, "handle", "the process handle is closed");
  }

  Napi::Value Pid(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), h_.pid);
  }
  Napi::Value IdentityKind(const Napi::CallbackInfo& info) {
    return Napi::String::New(info.Env(), identity_kind(h_.identity_kind));
  }
  Napi::Value Identity(const Napi::CallbackInfo& info) {
    return Napi::String::New(info.Env(), h_.identity);
  }

  Napi::Value Signal(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    EnsureOpen(env);
    if (info.Length() < 1 || !info[0].IsNumber()) throw_usage(env, "signal", "signal number");
    double d = info[0].As<Napi::Number>().DoubleValue();
    if (!std::isfinite(d) || std::trunc(d) != d || d < 0 || d > 128) {
      throw_usage(env, "signal", "signal must be an integer in 0..128");
    }
    check(env, proofs::handle_signal(&h_, static_cast<int>(d)));
    return env.Undefined();
  }

  Napi::Value IsAlive(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    EnsureOpen(env);
    bool alive = false;
    check(env, proofs::handle_alive(&h_, &alive));
    return Napi::Boolean::New(env, alive);
  }

  // The uv_poll_t lives in its own block: its close callback may run after this object is gone,
  // and an async cleanup hook holds the environment's teardown (and the unloading of this
  // addon in a worker thread) until the close callback has run.
  struct PollBlock {
    uv_poll_t poll;
    napi_async_cleanup_hook_handle hook = nullptr;
    Handle* owner = nullptr;
  };

  // watchExit(onExit) -> true if already exited (onExit is then not called).
  Napi::Value WatchExit(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    EnsureOpen(env);
    if (info.Length() < 1 || !info[0].IsFunction()) throw_usage(env, "watchExit", "callback");
    if (poll_ != nullptr) throw_usage(env, "watchExit", "already watching");
    bool already = false;
    check(env, proofs::handle_watch_exit(&h_, &already));
    if (already) return Napi::Boolean::New(env, true);
    uv_loop_t* loop = nullptr;
    if (napi_get_uv_event_loop(env, &loop) != napi_ok || loop == nullptr) {
      throw_error(env, Error{Failure::kUnsupported, 0, "napi_get_uv_event_loop", h_.pid});
    }
    auto* block = new PollBlock;
    int rc = uv_poll_init(loop, &block->poll, h_.exit_fd);
    if (rc != 0) {
      delete block;
      throw_error(env, Error{Failure::kSyscallFailed, -rc, "uv_poll_init", h_.pid});
    }
    block->poll.data = block;
    rc = uv_poll_start(&block->poll, UV_READABLE | UV_DISCONNECT, OnPoll);
    if (rc != 0) {
      uv_close(reinterpret_cast<uv_handle_t*>(&block->poll), OnClosed);
      throw_error(env, Error{Failure::kSyscallFailed, -rc, "uv_poll_start", h_.pid});
    }
    napi_add_async_cleanup_hook(env, OnTeardown, block, &block->hook);
    block->owner = this;
    poll_ = block;
    env_ = env;
    on_exit_ = Napi::Persistent(info[0].As<Napi::Function>());
    Ref();  // keep this object (and the fd) alive while the kernel may still report the exit
    return Napi::Boolean::New(env, false);
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    StopWatch(true);
    if (open_) proofs::handle_close(&h_);
    open_ = false;
    return info.Env().Undefined();
  }

  static void OnClosed(uv_handle_t* handle) {
    auto* block = static_cast<PollBlock*>(handle->data);
    if (block->hook != nullptr) napi_remove_async_cleanup_hook(block->hook);
    delete block;
  }

  // The environment is going away (process exit, worker exit) while a watch is active.
  static void OnTeardown(napi_async_cleanup_hook_handle, void* arg) {
    auto* block = static_cast<PollBlock*>(arg);
    if (block->owner != nullptr) block->owner->StopWatch(true);
  }

  // Stop and close the poll before the fd is closed (libuv: never close a polled fd). From the
  // destructor the wrapper's own reference is already being torn down, so it is left alone.
  void StopWatch(bool release_ref) {
    if (poll_ == nullptr) return;
    PollBlock* block = poll_;
    poll_ = nullptr;
    block->owner = nullptr;
    uv_poll_stop(&block->poll);
    uv_close(reinterpret_cast<uv_handle_t*>(&block->poll), OnClosed);
    if (release_ref) {
      on_exit_.Reset();
      Unref();
    }
  }

  static void OnPoll(uv_poll_t* poll, int status, int events) {
    (void)events;
    Handle* self = static_cast<PollBlock*>(poll->data)->owner;
    if (self == nullptr) return;
    bool is_exited = status < 0;  // an error on the exit fd ends the watch as well
    if (!is_exited && proofs::failed(proofs::handle_exit_ready(&self->h_, &is_exited))) {
      is_exited = true;
    }
    if (!is_exited) return;  // a spurious wakeup: keep watching
    Napi::Env env = self->env_;
    Napi::HandleScope scope(env);
    Napi::Function cb = self->on_exit_.Value();
    self->StopWatch(true);  // may drop the last reference; do not touch self afterwards
    try {
      // MakeCallback runs the microtask queue afterwards, so the promise resolves promptly.
      cb.MakeCallback(env.Global(), {});
    } catch (const Napi::Error& e) {
      (void)e;  // lib/kernel/handle.ts resolves a promise here; it does not throw
    }
  }

  proofs::ProcessHandle h_{};
  bool open_ = false;
  PollBlock* poll_ = nullptr;
  napi_env env_ = nullptr;
  Napi::FunctionReference on_exit_;
};

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

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("socketFacts", Napi::Function::New(env, SocketFacts, "socketFacts"));
  exports.Set("peerCredentials", Napi::Function::New(env, PeerCredentials, "peerCredentials"));
  exports.Set("peerSocketFile", Napi::Function::New(env, PeerSocketFile, "peerSocketFile"));
  Handle::Init(env, exports);
  exports.Set("flock", Napi::Function::New(env, Flock, "flock"));
  exports.Set("processFacts", Napi::Function::New(env, ProcessFacts, "processFacts"));
  exports.Set("kernelInfo", Napi::Function::New(env, KernelInfo, "kernelInfo"));
  return exports;
}

}  // namespace

NODE_API_MODULE(grok_seat_proofs, Init)
