// N-API glue, and the only file that includes napi.h (style.md "layout"): argument checks become
// typed usage errors (code INVALID_ARGUMENT), result structs become plain JS objects, and a
// proofs::Error becomes an Error with { code, pid, syscall, errno }. Everything is interpreted
// and validated again in lib/kernel/ (the addon is outside bytes too).
#include <napi.h>
#include <uv.h>

#include <cmath>
#include <cstring>
#include <string>

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

Napi::Value ProcessFacts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int32_t pid = pid_arg(info, 0);
  static thread_local proofs::ProcessFacts f;  // ~8 KiB: keep it off the stack, reuse it
  check(env, proofs::process_facts(pid, &f));
  Napi::Object o = Napi::Object::New(env);
  o.Set("pid", Napi::Number::New(env, f.pid));
  o.Set("ppid", Napi::Number::New(env, f.ppid));
  o.Set("uid", Napi::Number::New(env, f.uid));
  o.Set("euid", Napi::Number::New(env, f.euid));
  o.Set("executable", nullable_string(env, f.has_executable, f.executable));
  o.Set("executableDeleted", Napi::Boolean::New(env, f.executable_deleted));
  o.Set("cwd", nullable_string(env, f.has_cwd, f.cwd));
  o.Set("tty", nullable_string(env, f.has_tty, f.tty));
  // Epoch µs fits a double exactly until the year 2255 (2^53 µs).
  o.Set("startTimeUs", Napi::Number::New(env, static_cast<double>(f.start_time_us)));
  o.Set("startTimePrecisionUs",
        Napi::Number::New(env, static_cast<double>(f.start_time_precision_us)));
  o.Set("identityKind", Napi::String::New(env, identity_kind(f.identity_kind)));
  o.Set("identity", Napi::String::New(env, f.identity));
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

// Not built yet in this first slice: the name exists so lib/kernel/addon.ts accepts the module.
Napi::Value NotYet(const Napi::CallbackInfo& info) {
  throw_error(info.Env(), Error{Failure::kUnsupported, 0, "not built yet", -1});
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  for (const char* name :
       {"socketFacts", "peerCredentials", "peerSocketFile", "openProcessHandle"}) {
    exports.Set(name, Napi::Function::New(env, NotYet, name));
  }
  exports.Set("flock", Napi::Function::New(env, Flock, "flock"));
  exports.Set("processFacts", Napi::Function::New(env, ProcessFacts, "processFacts"));
  exports.Set("kernelInfo", Napi::Function::New(env, KernelInfo, "kernelInfo"));
  return exports;
}

}  // namespace

NODE_API_MODULE(grok_seat_proofs, Init)
