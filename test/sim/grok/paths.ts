/**
 * Where the real program puts things: leader socket and lock (leader/lock.rs), the sessions tree
 * (xai-grok-config paths.rs encode_cwd_dirname) and the launch-dir anchoring of --leader-socket
 * (pager/app/cli.rs apply_cwd_from).
 */
import { createHash } from "node:crypto";
import { basename, dirname, extname, isAbsolute, join } from "node:path";
import { grokHome, LEADER_SOCKET_ENV, PROD_RELAY_WS_URL } from "./env.js";

const MASK = (1n << 64n) - 1n;

function rotl(x: bigint, b: bigint): bigint {
  return ((x << b) | (x >> (64n - b))) & MASK;
}

/** std's DefaultHasher (SipHash-1-3, zero keys) over `str::hash` (bytes, then 0xff). */
export function defaultHasherStr(s: string): bigint {
  const msg = Buffer.concat([Buffer.from(s, "utf8"), Buffer.from([0xff])]);
  let v0 = 0x736f6d6570736575n;
  let v1 = 0x646f72616e646f6dn;
  let v2 = 0x6c7967656e657261n;
  let v3 = 0x7465646279746573n;
  const round = (): void => {
    v0 = (v0 + v1) & MASK;
    v1 = rotl(v1, 13n) ^ v0;
    v0 = rotl(v0, 32n);
    v2 = (v2 + v3) & MASK;
    v3 = rotl(v3, 16n) ^ v2;
    v0 = (v0 + v3) & MASK;
    v3 = rotl(v3, 21n) ^ v0;
    v2 = (v2 + v1) & MASK;
    v1 = rotl(v1, 17n) ^ v2;
    v2 = rotl(v2, 32n);
  };
  const end = msg.length - (msg.length % 8);
  for (let i = 0; i < end; i += 8) {
    const m = msg.readBigUInt64LE(i);
    v3 ^= m;
    round();
    v0 ^= m;
  }
  let b = BigInt(msg.length & 0xff) << 56n;
  for (let i = end; i < msg.length; i++) b |= BigInt(msg[i] ?? 0) << BigInt(8 * (i - end));
  v3 ^= b;
  round();
  v0 ^= b;
  v2 ^= 0xffn;
  round();
  round();
  round();
  return (v0 ^ v1 ^ v2 ^ v3) & MASK;
}

/** lock.rs compute_ws_url_suffix: "" for empty or production, else "-" + 8 hex of the low u32. */
export function wsUrlSuffix(wsUrl: string): string {
  if (wsUrl === "" || wsUrl === PROD_RELAY_WS_URL) return "";
  return `-${(defaultHasherStr(wsUrl) & 0xffffffffn).toString(16).padStart(8, "0")}`;
}

/** Rust Path::with_extension("lock"): replace the extension, or add one when there is none. */
export function lockPathForSocket(socket: string): string {
  const base = basename(socket);
  const ext = base.startsWith(".") && base.indexOf(".", 1) < 0 ? "" : extname(base);
  const stem = ext === "" ? base : base.slice(0, -ext.length);
  return join(dirname(socket), `${stem}.lock`);
}

export interface LeaderPaths {
  socketPath: string;
  lockPath: string;
}

/** LeaderLock::new: GROK_LEADER_SOCKET verbatim (lock = sibling .lock), else $GROK_HOME/leader*. */
export function leaderPaths(wsUrl: string): LeaderPaths {
  const override = process.env[LEADER_SOCKET_ENV];
  if (override !== undefined && override !== "") {
    return { socketPath: override, lockPath: lockPathForSocket(override) };
  }
  const suffix = wsUrlSuffix(wsUrl);
  const home = grokHome();
  return {
    socketPath: join(home, `leader${suffix}.sock`),
    lockPath: join(home, `leader${suffix}.lock`),
  };
}

/** anchor_to_launch_dir: relative paths are joined to the launch dir, not normalized. */
export function anchorToLaunchDir(path: string, launchDir: string): string {
  return isAbsolute(path) ? path : `${launchDir.replace(/\/+$/, "")}/${path}`;
}

const MAX_DIRNAME_BYTES = 255;

/** urlencoding::encode: everything but ASCII alphanumerics and -_.~ becomes %XX. */
function urlEncode(s: string): string {
  let out = "";
  for (const byte of Buffer.from(s, "utf8")) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * encode_cwd_dirname. Deviation: cwds whose encoding exceeds 255 bytes are hashed with SHA-256
 * instead of BLAKE3 (no BLAKE3 in Node); such paths never occur in the tests.
 */
export function encodeCwdDirname(cwd: string): string {
  const encoded = urlEncode(cwd);
  if (Buffer.byteLength(encoded) <= MAX_DIRNAME_BYTES) return encoded;
  const hash16 = createHash("sha256").update(cwd).digest("hex").slice(0, 16);
  const slug = basename(cwd)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return `${slug === "" ? "workspace" : slug}-${hash16}`;
}

export function sessionDir(cwd: string, sessionId: string): string {
  return join(grokHome(), "sessions", encodeCwdDirname(cwd), sessionId);
}
