/**
 * The simulator's two native helpers (flock from the project's addon, execve from the shim the
 * simulator build compiles) are loaded the same way: the first candidate file that dlopens and
 * exports the function wins.
 */
export type AddonFunction = (...args: unknown[]) => unknown;

/** The function `name` of the first of `paths` that loads and exports it, bound to its module. */
export function addonFunction(paths: readonly string[], name: string): AddonFunction | undefined {
  for (const path of paths) {
    const mod: { exports: Record<string, unknown> } = { exports: {} };
    try {
      process.dlopen(mod, path);
    } catch {
      continue;
    }
    const fn = mod.exports[name];
    if (typeof fn === "function") return (...args) => Reflect.apply(fn, mod.exports, args);
  }
  return undefined;
}
