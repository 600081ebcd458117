// The Node-API binding: the only files that include napi.h (docs/design/style.md "layout"), split
// the way
// @parcel/watcher separates its binding from its watcher: binding.cc turns JS arguments into C
// values and proofs::Error into JS errors, facts.cc turns the fact structs of proofs.h into JS
// values, handle.cc holds the one stateful object (a process handle with its libuv poll).
// Everything is interpreted and validated again in lib/kernel/ (the addon is outside bytes too).
#pragma once

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "../proofs.h"

namespace binding {

// Throws a JS Error with { code, pid, syscall, errno } (lib/kernel/binding.ts RawNativeError).
[[noreturn]] void throw_error(Napi::Env env, const proofs::Error& e, const char* detail = nullptr);
// A caller's mistake: code INVALID_ARGUMENT, syscall = the argument's name.
[[noreturn]] void throw_usage(Napi::Env env, const char* what, const char* message);
inline void check(Napi::Env env, const proofs::Error& e) {
  if (proofs::failed(e)) throw_error(env, e);
}

// Argument i as a pid (an integer in 1..2^31-1), an fd (an integer in 0..2^31-1), or a path (a
// non-empty string without NUL, at most max_bytes in UTF-8); anything else is INVALID_ARGUMENT.
int32_t pid_arg(const Napi::CallbackInfo& info, size_t i, const char* what = "pid");
int fd_arg(const Napi::CallbackInfo& info, size_t i);
std::string path_arg(const Napi::CallbackInfo& info, size_t i, size_t max_bytes, const char* what);
// True when argument i was not passed, or is undefined or null.
bool absent(const Napi::CallbackInfo& info, size_t i);

const char* identity_kind(proofs::IdentityKind k);

// Registers the exports of facts.cc and handle.cc.
void init_facts(Napi::Env env, Napi::Object exports);
void init_handle(Napi::Env env, Napi::Object exports);

}  // namespace binding
