/**
 * The one lazy loader of the native addon (docs/design/style.md habit 9). Importing the package never loads
 * the `.node` file: the first kernel call does. A failed load names every path that was tried;
 * an OS without a backend gets a clear UNSUPPORTED error. Native errors are turned into
 * KernelError / UsageError here, in one place.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { arch, platform } from "node:os";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import * as v from "valibot";
import { GrokSeatError, UsageError } from "../errors.js";
import { isNativeAddon, missingExports, type NativeAddon, RawNativeError } from "./binding.js";
import { KernelError } from "./kernel-error.js";

const PackageName = v.object({ name: v.string() });
let root: string | undefined;

/**
 * The package root (with a trailing separator): the nearest directory above this module whose
 * package.json names grok-seat. This code runs from lib/kernel under tsx and from a bundled chunk
 * under dist/ (scripts/bundle.mjs), so no one relative path is right for both. Found on the first
 * kernel call, not at import.
 */
export function packageRoot(): string {
  if (root !== undefined) return root;
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = dirname(dir)) {
    let text: string | null = null;
    try {
      text = readFileSync(join(dir, "package.json"), "utf8");
    } catch {
      text = null;
    }
    const named = text === null ? null : v.safeParse(PackageName, safeJson(text));
    if (named?.success === true && named.output.name === "grok-seat") {
      root = `${dir}${sep}`;
      return root;
    }
    if (dirname(dir) === dir) {
      throw new GrokSeatError("ADDON_LOAD_FAILED", `no grok-seat package.json above ${here}`);
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

let loaded: NativeAddon | undefined;

/**
 * The directory node-gyp-build searches: the package root, unless GROK_SEAT_PREBUILD names another
 * (node-gyp-build honours `<PACKAGE_NAME>_PREBUILD`).
 */
export function searchRoot(): string {
  const override = process.env.GROK_SEAT_PREBUILD;
  return override !== undefined && override !== "" ? override : packageRoot();
}

/** Where node-gyp-build looks, in its order (node-gyp-build.js `load.path`). */
export function candidateDirs(root: string = searchRoot()): string[] {
  const tuple = `${platform()}-${arch()}`;
  return [
    join(root, "build", "Release"),
    join(root, "build", "Debug"),
    join(root, "prebuilds", tuple),
    join(dirname(process.execPath), "prebuilds", tuple),
  ];
}

type Resolver = (dir: string) => string;

function nodeGypBuildResolver(): Resolver {
  const require = createRequire(import.meta.url);
  const mod: unknown = require("node-gyp-build");
  const resolve: unknown = typeof mod === "function" ? Reflect.get(mod, "path") : undefined;
  if (typeof resolve !== "function") {
    throw new GrokSeatError("ADDON_LOAD_FAILED", "node-gyp-build has no path() function");
  }
  return (dir) => {
    const found: unknown = Reflect.apply(resolve, mod, [dir]);
    if (typeof found !== "string") throw new Error("node-gyp-build.path returned no path");
    return found;
  };
}

/** Load (once) and return the addon. Throws UNSUPPORTED off Linux/macOS, ADDON_LOAD_FAILED else. */
export function addon(): NativeAddon {
  if (loaded !== undefined) return loaded;
  const os = process.platform;
  if (os !== "linux" && os !== "darwin") {
    throw new KernelError("UNSUPPORTED", {
      pid: null,
      syscall: "load addon",
      errno: 0,
      message: `UNSUPPORTED: grok-seat's kernel proofs exist for linux and darwin, not ${os}`,
    });
  }
  const tried = candidateDirs();
  let file: string;
  try {
    file = nodeGypBuildResolver()(packageRoot());
  } catch (cause) {
    throw new GrokSeatError(
      "ADDON_LOAD_FAILED",
      `no native addon for ${platform()}-${arch()}: no prebuilt binary ships for it and none was ` +
        `built at install (tried ${tried.join(", ")}). npm may have skipped the install script: ` +
        "approve it (npm install-scripts approve grok-seat) or run npm rebuild grok-seat, which " +
        "needs python3, make and a C++ compiler; in a checkout of grok-seat: npm run build:native",
      { details: { tried }, cause },
    );
  }
  let mod: unknown;
  try {
    mod = createRequire(import.meta.url)(file);
  } catch (cause) {
    throw new GrokSeatError(
      "ADDON_LOAD_FAILED",
      `loading ${file} failed; tried ${tried.join(", ")}`,
      {
        details: { tried, file },
        cause,
      },
    );
  }
  if (!isNativeAddon(mod)) {
    throw new GrokSeatError(
      "ADDON_LOAD_FAILED",
      `${file} lacks ${missingExports(mod).join(", ")}: stale build? (npm run build:native)`,
      { details: { tried, file } },
    );
  }
  loaded = mod;
  return mod;
}

/** True once the addon was loaded (for tests of the lazy-load rule). */
export function addonLoaded(): boolean {
  return loaded !== undefined;
}

/** Turn whatever the addon threw into KernelError (kernel failures) or UsageError (our caller's). */
export function typedError(err: unknown): Error {
  const parsed = v.safeParse(RawNativeError, err);
  if (!parsed.success) {
    return new KernelError("SYSCALL_FAILED", {
      pid: null,
      syscall: "native call",
      errno: 0,
      message: `SYSCALL_FAILED: unexpected native error: ${String(err)}`,
    });
  }
  const e = parsed.output;
  if (e.code === "INVALID_ARGUMENT") {
    return new UsageError("INVALID_ARGUMENT", e.message, {
      details: { syscall: e.syscall, errno: e.errno },
      cause: err,
    });
  }
  return new KernelError(e.code, {
    pid: e.pid,
    syscall: e.syscall,
    errno: e.errno,
    message: e.message,
  });
}

/** Run one native call with typed errors. */
export function callNative<T>(fn: (native: NativeAddon) => T): T {
  const native = addon();
  try {
    return fn(native);
  } catch (err) {
    throw typedError(err);
  }
}

/** Parse a native result; a mismatch means a stale or broken build, never bad input. */
export function parseNative<const S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  what: string,
): v.InferOutput<S> {
  const parsed = v.safeParse(schema, value);
  if (parsed.success) return parsed.output;
  const issue = parsed.issues[0];
  const where =
    issue === undefined ? "" : ` at ${v.getDotPath(issue) ?? "<root>"}: ${issue.message}`;
  throw new KernelError("SYSCALL_FAILED", {
    pid: null,
    syscall: what,
    errno: 0,
    message: `SYSCALL_FAILED: ${what} returned an unexpected shape${where}`,
  });
}
