/**
 * Every exported kernel call, every argument, every wrong type: a UsageError INVALID_ARGUMENT,
 * never a TypeError from deeper down (issue 16 item 9: `socketFacts(123)` and
 * `openProcessHandle(pid, null)` used to throw untyped TypeErrors). Runs on every OS.
 */
import { closeSync, openSync, writeFileSync } from "node:fs";
import { Socket } from "node:net";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { UsageError } from "../../lib/errors.js";
import * as kernel from "../../lib/kernel/index.js";
import { cleanup, onCleanup, spawnChild, tempDir } from "../helpers/kernel-children.js";

test.after.each(cleanup);

/** What a call threw: "INVALID_ARGUMENT" for the right error, a description for anything else. */
function outcome(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof UsageError && err.code === "INVALID_ARGUMENT") return "INVALID_ARGUMENT";
    return `threw ${err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err)}`;
  }
  return "returned";
}

function show(v: unknown): string {
  if (typeof v === "symbol" || typeof v === "bigint") return `${typeof v} ${String(v)}`;
  if (typeof v === "function") return "a function";
  if (v instanceof Socket) return "an unconnected net.Socket";
  return JSON.stringify(v) ?? String(v);
}

const notObjects: readonly unknown[] = [1, "x", true, Symbol("s"), 1n];
const notIntegers: readonly unknown[] = [
  undefined,
  null,
  true,
  "1",
  1.5,
  -1,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 31,
  {},
  [],
  () => 1,
  Symbol("s"),
  1n,
];
const badPids: readonly unknown[] = [...notIntegers, 0];
const badFds: readonly unknown[] = notIntegers;
const badPaths: readonly unknown[] = [
  undefined,
  null,
  123,
  true,
  {},
  [],
  () => "x",
  Symbol("s"),
  1n,
  "",
  "a\u0000b",
];
const badOptions: readonly unknown[] = [null, ...notObjects, [], () => ({})];
const badSockets: readonly unknown[] = [undefined, null, ...notObjects, {}, [], new Socket()];

/**
 * Each exported function with, per argument, the wrong values to try and a call that fills the
 * other arguments with good ones.
 */
type Sweep = readonly (readonly [
  what: string,
  bad: readonly unknown[],
  call: (x: unknown) => unknown,
])[];

function sweeps(fd: number): Record<string, Sweep> {
  const pid = process.pid;
  const peer = { ownSocketInode: "1", peerSocketInode: "2", file: { device: "1", inode32: 1 } };
  const file = { device: "1", inode: "1" };
  // Reflect.apply: callers without types (JavaScript, JSON input) pass exactly these values.
  const call = Reflect.apply;
  return {
    addonLoaded: [],
    kernelInfo: [],
    processFacts: [["pid", badPids, (x) => call(kernel.processFacts, null, [x])]],
    socketFacts: [
      ["path", badPaths, (x) => call(kernel.socketFacts, null, [x])],
      ["options", badOptions, (x) => call(kernel.socketFacts, null, ["/tmp", x])],
      [
        "options.pid",
        badPids.filter((x) => x !== undefined),
        (x) => call(kernel.socketFacts, null, ["/tmp", { pid: x }]),
      ],
    ],
    peerCredentials: [["socket", badSockets, (x) => call(kernel.peerCredentials, null, [x])]],
    peerCredentialsOfFd: [["fd", badFds, (x) => call(kernel.peerCredentialsOfFd, null, [x])]],
    peerSocketFile: [["socket", badSockets, (x) => call(kernel.peerSocketFile, null, [x])]],
    peerBoundTo: [
      [
        "peer",
        [
          undefined,
          null,
          ...notObjects,
          { file: 1 },
          { file: { device: 1, inode32: 1 } },
          { file: { device: "1", inode32: -1 } },
        ],
        (x) => call(kernel.peerBoundTo, null, [x, file]),
      ],
      [
        "file",
        [
          undefined,
          null,
          ...notObjects,
          {},
          { device: "1", inode: 1 },
          { device: "x", inode: "1" },
        ],
        (x) => call(kernel.peerBoundTo, null, [peer, x]),
      ],
    ],
    flock: [
      ["fd", badFds, (x) => call(kernel.flock, null, [x, "shared", { nonBlocking: true }])],
      [
        "mode",
        [undefined, null, 1, "x", "toString", "constructor", {}, Symbol("s")],
        (x) => call(kernel.flock, null, [fd, x, { nonBlocking: true }]),
      ],
      [
        "options",
        [...badOptions, { nonBlocking: "yes" }, { nonBlocking: 1 }],
        (x) => call(kernel.flock, null, [fd, "shared", x]),
      ],
    ],
    openProcessHandle: [
      ["pid", badPids, (x) => call(kernel.openProcessHandle, null, [x])],
      [
        "expectedIdentity",
        [
          null,
          ...notObjects,
          {},
          [],
          { kind: "nope", value: "x" },
          { kind: "linux-pidfs" },
          { value: "x" },
        ],
        (x) => call(kernel.openProcessHandle, null, [pid, x]),
      ],
    ],
    pathAncestry: [["path", badPaths, (x) => call(kernel.pathAncestry, null, [x])]],
    processArgv: [["pid", badPids, (x) => call(kernel.processArgv, null, [x])]],
    ptyMasters: [["pid", badPids, (x) => call(kernel.ptyMasters, null, [x])]],
    readRegularFile: [
      ["path", badPaths, (x) => call(kernel.readRegularFile, null, [x, 1])],
      [
        "maxBytes",
        [undefined, null, "1", 1.5, -1, Number.NaN, {}, 1n],
        (x) => call(kernel.readRegularFile, null, ["/dev/null", x]),
      ],
    ],
    signalNumber: [
      [
        "signal",
        [undefined, null, true, 1.5, -1, 129, "SIGNOPE", "toString", "", {}, [], Symbol("s"), 1n],
        (x) => call(kernel.signalNumber, null, [x]),
      ],
    ],
  };
}

test("every exported kernel function has a sweep (a new export needs one)", () => {
  const classes = new Set(["KernelError", "FileReadError"]);
  // The port's helpers over values already read (lib/kernel/port.ts) make no kernel call; the
  // kernel calls they reach through the port are swept here under their own names.
  const portHelpers = new Set(["identityJson", "readProcess", "sameIdentity", "socketFactsFor"]);
  const exported = Object.entries(kernel)
    .filter(
      ([name, value]) =>
        typeof value === "function" && !classes.has(name) && !portHelpers.has(name),
    )
    .map(([name]) => name)
    .sort();
  assert.equal(exported, Object.keys(sweeps(0)).sort());
});

test("every wrong argument to every kernel function is INVALID_ARGUMENT, never a TypeError", () => {
  const path = join(tempDir("args"), "lock");
  writeFileSync(path, "");
  const fd = openSync(path, "r+");
  onCleanup(() => closeSync(fd));
  const wrong: string[] = [];
  let tried = 0;
  for (const [name, positions] of Object.entries(sweeps(fd))) {
    for (const [what, values, call] of positions) {
      for (const value of values) {
        tried++;
        const got = outcome(() => call(value));
        if (got !== "INVALID_ARGUMENT") wrong.push(`${name}(${what} = ${show(value)}): ${got}`);
      }
    }
  }
  assert.equal(wrong, [], wrong.join("\n"));
  assert.ok(tried > 150, `swept ${tried} calls`);
});

test("a process handle's signal() refuses wrong signals the same way", () => {
  const child = spawnChild("sleep", ["30"]);
  const h = kernel.openProcessHandle(child.pid ?? 0);
  onCleanup(() => h.close());
  for (const bad of [undefined, null, 1.5, -1, 129, "SIGNOPE", {}, Symbol("s")]) {
    assert.is(
      outcome(() => Reflect.apply(h.signal, h, [bad])),
      "INVALID_ARGUMENT",
      show(bad),
    );
  }
  assert.is(h.isAlive(), true, "no wrong signal reached the process");
});

test("the two calls the issue names: socketFacts(123), openProcessHandle(pid, null)", () => {
  assert.is(
    outcome(() => Reflect.apply(kernel.socketFacts, null, [123])),
    "INVALID_ARGUMENT",
  );
  assert.is(
    outcome(() => Reflect.apply(kernel.openProcessHandle, null, [process.pid, null])),
    "INVALID_ARGUMENT",
  );
});

test.run();
