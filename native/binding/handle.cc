// The one stateful object of the binding: a process handle (proofs.h ProcessHandle) whose exit is
// observed with a uv_poll on the backend's exit fd (the pidfd on Linux, a kqueue with EVFILT_PROC
// NOTE_EXIT on macOS): no thread, no kill(pid, 0) polling. While an exit watch is active the poll
// keeps the event loop alive, like a ChildProcess; close() or the exit releases it.
#include <uv.h>

#include <cmath>
#include <string>
#include <vector>

#include "binding.h"

namespace binding {

namespace {

using proofs::Error;
using proofs::Failure;

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

}  // namespace

void init_handle(Napi::Env env, Napi::Object exports) {
  Handle::Init(env, exports);
}

}  // namespace binding
