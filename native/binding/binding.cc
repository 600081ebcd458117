// The module entry, JS arguments -> C values and proofs::Error -> JS errors (binding.h). Every
// argument a caller can get wrong is checked here: a bad one is INVALID_ARGUMENT, never a
// TypeError.
#include <cmath>
#include <cstring>
#include <string>

#include "binding.h"

namespace binding {

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

// An integer argument in [min, 2^31-1], or INVALID_ARGUMENT naming it.
double integer_arg(const Napi::CallbackInfo& info, size_t i, double min, const char* what,
                   const char* message) {
  Napi::Env env = info.Env();
  if (info.Length() <= i || !info[i].IsNumber()) throw_usage(env, what, message);
  double d = info[i].As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d) || std::trunc(d) != d || d < min || d > 2147483647.0) {
    throw_usage(env, what, message);
  }
  return d;
}

}  // namespace

void throw_error(Napi::Env env, const Error& e, const char* detail) {
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

void throw_usage(Napi::Env env, const char* what, const char* message) {
  throw_error(env, Error{Failure::kInvalidArgument, 0, what, -1}, message);
}

int32_t pid_arg(const Napi::CallbackInfo& info, size_t i, const char* what) {
  return static_cast<int32_t>(integer_arg(info, i, 1, what, "pid must be an integer in 1..2^31-1"));
}

int fd_arg(const Napi::CallbackInfo& info, size_t i) {
  return static_cast<int>(integer_arg(info, i, 0, "fd", "fd must be an integer in 0..2^31-1"));
}

std::string path_arg(const Napi::CallbackInfo& info, size_t i, size_t max_bytes, const char* what) {
  Napi::Env env = info.Env();
  if (info.Length() <= i || !info[i].IsString()) throw_usage(env, what, "path must be a string");
  std::string s = info[i].As<Napi::String>().Utf8Value();
  if (s.empty()) throw_usage(env, what, "path must not be empty");
  if (s.find('\0') != std::string::npos) throw_usage(env, what, "path must not contain NUL");
  if (s.size() > max_bytes) throw_usage(env, what, "path is longer than sun_path allows");
  return s;
}

bool absent(const Napi::CallbackInfo& info, size_t i) {
  return info.Length() <= i || info[i].IsUndefined() || info[i].IsNull();
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

}  // namespace binding

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  binding::init_facts(env, exports);
  binding::init_handle(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(grok_seat_proofs, Init)
