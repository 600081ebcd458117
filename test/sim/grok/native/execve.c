/*
 * Test-only Node-API shim for the grok simulator: execve(2), which Node 20 lacks
 * (process.execve arrived in Node 22.15). The simulated TUI's /minimal and /fullscreen replace
 * the process image in place, as the real TUI does (xai-grok-pager
 * app/screen_mode_relaunch.rs, Unix `exec`): same pid, new argv. Built by `npm run build:sim`
 * next to the simulator binary and loaded with process.dlopen; never part of the package.
 *
 * execve(path: string, argv: string[], env: string[]): only returns by throwing, with the errno
 * name in `code` and the errno number in `errno`. Descriptors 0-2 are made inheritable and
 * blocking first (see below); every other descriptor keeps its close-on-exec flag.
 */
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char* copy_string(napi_env env, napi_value value) {
  size_t len = 0;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &len) != napi_ok) return NULL;
  char* out = malloc(len + 1);
  if (out == NULL) return NULL;
  if (napi_get_value_string_utf8(env, value, out, len + 1, &len) != napi_ok) {
    free(out);
    return NULL;
  }
  return out;
}

static void free_list(char** list) {
  if (list == NULL) return;
  for (char** p = list; *p != NULL; p++) free(*p);
  free(list);
}

static char** copy_list(napi_env env, napi_value array) {
  uint32_t n = 0;
  if (napi_get_array_length(env, array, &n) != napi_ok) return NULL;
  char** out = calloc((size_t)n + 1, sizeof(char*));
  if (out == NULL) return NULL;
  for (uint32_t i = 0; i < n; i++) {
    napi_value item;
    if (napi_get_element(env, array, i, &item) != napi_ok ||
        (out[i] = copy_string(env, item)) == NULL) {
      free_list(out);
      return NULL;
    }
  }
  return out;
}

static napi_value throw_errno(napi_env env, int err) {
  napi_value message;
  napi_value error;
  napi_value code;
  napi_value number;
  const char* text = strerror(err);
  napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &message);
  napi_create_error(env, NULL, message, &error);
  napi_create_string_utf8(env,
                          err == ENOENT    ? "ENOENT"
                          : err == EACCES  ? "EACCES"
                          : err == E2BIG   ? "E2BIG"
                          : err == ENOEXEC ? "ENOEXEC"
                                           : "EEXEC",
                          NAPI_AUTO_LENGTH, &code);
  napi_set_named_property(env, error, "code", code);
  napi_create_int32(env, err, &number);
  napi_set_named_property(env, error, "errno", number);
  napi_throw(env, error);
  return NULL;
}

static napi_value Execve(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value args[3];
  if (napi_get_cb_info(env, info, &argc, args, NULL, NULL) != napi_ok || argc != 3) {
    napi_throw_type_error(env, NULL, "execve(path, argv, env)");
    return NULL;
  }
  char* path = copy_string(env, args[0]);
  char** argv = copy_list(env, args[1]);
  char** envp = copy_list(env, args[2]);
  if (path == NULL || argv == NULL || envp == NULL) {
    free(path);
    free_list(argv);
    free_list(envp);
    napi_throw_type_error(env, NULL, "execve: path must be a string, argv and env string arrays");
    return NULL;
  }
  /* The real TUI's stdio survives exec. libuv reopens a tty on stdin/stdout and dup3()s it back
   * close-on-exec and non-blocking; give the new image the descriptors the real one would get. */
  for (int fd = 0; fd <= 2; fd++) {
    int fdflags = fcntl(fd, F_GETFD);
    if (fdflags >= 0) fcntl(fd, F_SETFD, fdflags & ~FD_CLOEXEC);
    int flflags = fcntl(fd, F_GETFL);
    if (flflags >= 0) fcntl(fd, F_SETFL, flflags & ~O_NONBLOCK);
  }
  execve(path, argv, envp);
  int err = errno;
  free(path);
  free_list(argv);
  free_list(envp);
  return throw_errno(env, err);
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "execve", NAPI_AUTO_LENGTH, Execve, NULL, &fn);
  napi_set_named_property(env, exports, "execve", fn);
  return exports;
}
