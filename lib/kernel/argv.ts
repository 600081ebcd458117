/**
 * The argv of a process as the kernel holds it (what it was exec'd with, or rewrote since), read
 * where each OS keeps it: Linux /proc/<pid>/cmdline (lib/kernel/procfs-read.ts), macOS sysctl
 * KERN_PROCARGS2 through the addon (native/darwin/argv.cc). UNSUPPORTED elsewhere.
 */
import { requirePid } from "./arguments.js";
import { RawProcessArgv } from "./binding.js";
import { KernelError } from "./kernel-error.js";
import { callNative, parseNative } from "./loader.js";
import { procfsArgv } from "./procfs-read.js";

export function processArgv(pid: number): readonly string[] {
  requirePid(pid, "processArgv");
  if (process.platform === "linux") return procfsArgv(pid);
  if (process.platform === "darwin") {
    return parseNative(
      RawProcessArgv,
      callNative((n) => n.processArgv(pid)),
      "processArgv",
    );
  }
  throw new KernelError("UNSUPPORTED", {
    pid,
    syscall: "process argv",
    errno: 0,
    message: `UNSUPPORTED: process argv is not read on ${process.platform}`,
  });
}
