/**
 * The projecting proxy in one process: operator bank ⇄ proxy ⇄ official SDK client over
 * in-memory linked pairs. The bank's call log (recorded at its transport) is the oracle for
 * "never reaches upstream" and "byte-identical". The same claims are checked across real
 * processes, stdio and HTTP, in proxy-main.test.ts.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as v from "valibot";
import { z } from "zod";
import type { ProjectionIssue } from "../../lib/mcp/issues.js";
import { ORIGINAL_INPUT_SCHEMA_META, projectTools } from "../../lib/mcp/project.js";
import { ERROR_META, ProjectingProxy, type ProjectingProxyOptions } from "../../lib/mcp/proxy.js";
import { type BankOptions, bankVariant, OperatorBank } from "../sim/mcp-bank/bank.js";
import { loadBankTools, loadCallCases, NEVER_OBJECT_TOOLS } from "../sim/mcp-bank/fixture.js";
import { canonical, rawListFails, undoRewrites, waitFor } from "./helpers.js";

interface Rig {
  readonly bank: OperatorBank;
  readonly proxy: ProjectingProxy;
  readonly client: Client;
  readonly issues: ProjectionIssue[];
  close(): Promise<void>;
}

async function rig(
  bankOptions: Partial<BankOptions> = {},
  proxyOptions: ProjectingProxyOptions = {},
): Promise<Rig> {
  const bank = new OperatorBank({ tools: loadBankTools(), pageSize: 4, ...bankOptions });
  const [up, bankSide] = InMemoryTransport.createLinkedPair();
  await bank.connect(bankSide);
  const issues: ProjectionIssue[] = [];
  const proxy = await ProjectingProxy.start(up, {
    onIssues: (i) => issues.push(...i),
    ...proxyOptions,
  });
  const [down, proxySide] = InMemoryTransport.createLinkedPair();
  await proxy.createServer().connect(proxySide);
  const client = new Client({ name: "downstream", version: "1.0.0" });
  await client.connect(down);
  return {
    bank,
    proxy,
    client,
    issues,
    async close() {
      await client.close();
      await proxy.close();
    },
  };
}

/** tools/call as raw JSON-RPC: the result exactly as the proxy sent it. */
function rawCall(client: Client, name: string, args?: unknown): Promise<unknown> {
  return client.request(
    { method: "tools/call", params: args === undefined ? { name } : { name, arguments: args } },
    z.unknown(),
  );
}

const ErrorResult = v.object({
  isError: v.literal(true),
  content: v.tuple([v.object({ type: v.literal("text"), text: v.string() })]),
  _meta: v.object({
    [ERROR_META]: v.object({
      code: v.string(),
      message: v.string(),
      details: v.object({ tool: v.string(), errors: v.array(v.unknown()) }),
    }),
  }),
});

/** Run `body` against a default rig, closed after it. */
async function withRig(body: (r: Rig) => Promise<void>): Promise<void> {
  const r = await rig();
  try {
    await body(r);
  } finally {
    await r.close();
  }
}

test("the official client rejects the raw bank's list; the same list projected is accepted", async () => {
  const bank = new OperatorBank({ tools: loadBankTools() });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await bank.connect(b);
  const direct = new Client({ name: "direct", version: "1.0.0" });
  await direct.connect(a);
  await rawListFails(direct, 20);
  await direct.close();

  const r = await rig();
  try {
    const { tools } = await r.client.listTools();
    assert.is(tools.length, 17);
    assert.not.ok(tools.some((t) => (NEVER_OBJECT_TOOLS as readonly string[]).includes(t.name)));
    assert.equal(
      r.issues.map((i) => [i.tool, i.code]),
      NEVER_OBJECT_TOOLS.map((n) => [n, "MCP_SCHEMA_NEVER_OBJECT"]),
    );
  } finally {
    await r.close();
  }
});

test("every listed schema equals its original apart from the documented rewrites (all pages)", async () => {
  for (const pageSize of [1, 4, 100]) {
    const r = await rig({ pageSize });
    try {
      const listed = (
        await r.client.request({ method: "tools/list" }, z.object({ tools: z.array(z.unknown()) }))
      ).tools;
      const expected = projectTools(loadBankTools()).tools;
      assert.is(listed.length, expected.length, `page size ${pageSize}`);
      listed.forEach((tool, i) => {
        const p = expected[i];
        assert.ok(p);
        if (!p) return;
        assert.is(canonical(tool), canonical(p.listed), p.name);
        assert.ok(typeof tool === "object" && tool !== null && "inputSchema" in tool);
        if (typeof tool === "object" && tool !== null && "inputSchema" in tool)
          assert.is(
            canonical(undoRewrites(tool.inputSchema, p.rewrites.inputSchema)),
            canonical(p.original.inputSchema),
            p.name,
          );
      });
    } finally {
      await r.close();
    }
  }
});

test("valid calls reach upstream with byte-identical arguments; results come back unchanged", () =>
  withRig(async (r) => {
    for (const c of loadCallCases().filter((x) => x.valid)) {
      const before = r.bank.calls.length;
      const result = await rawCall(r.client, c.tool, c.arguments);
      assert.is(r.bank.calls.length, before + 1, c.note);
      const call = r.bank.calls[before];
      assert.is(call?.name, c.tool);
      assert.is(call?.argumentsJson, JSON.stringify(c.arguments), c.note);
      assert.is(JSON.stringify(result), call?.resultJson, c.note);
    }
    // The vendor key inside the content block survived (the SDK Server wrapper would strip it).
    const result = await rawCall(r.client, "echo", { text: "x" });
    assert.ok(JSON.stringify(result).includes('"x-bank":{'));
  }));

test("invalid calls are refused with a useful tool error and never reach upstream", () =>
  withRig(async (r) => {
    for (const c of loadCallCases().filter((x) => !x.valid)) {
      const before = r.bank.calls.length;
      const result = await rawCall(r.client, c.tool, c.arguments);
      assert.is(r.bank.calls.length, before, `${c.tool}: ${c.note} reached upstream`);
      const parsed = v.safeParse(ErrorResult, result);
      assert.ok(parsed.success, c.note);
      if (!parsed.success) continue;
      const error = parsed.output._meta[ERROR_META];
      assert.is(error.code, "MCP_INVALID_ARGUMENTS");
      assert.is(error.details.tool, c.tool);
      assert.ok(error.details.errors.length > 0);
      assert.is(parsed.output.content[0].text, error.message);
      assert.ok(error.message.includes(JSON.stringify(c.tool)));
    }
    // The official client's callTool surfaces the same refusal to the model.
    const viaSdk = await r.client.callTool({ name: "open_target", arguments: { path: 1 } });
    assert.is(viaSdk.isError, true);
    assert.equal(r.bank.calls, []);
  }));

test("protocol-error mode: invalid arguments are JSON-RPC -32602 with the typed error as data", async () => {
  const r = await rig({}, { invalidArguments: "protocol-error" });
  try {
    let err: unknown;
    await rawCall(r.client, "shape_edit", { kind: "rect", w: "x", h: 1 }).catch((e: unknown) => {
      err = e;
    });
    assert.ok(err instanceof McpError);
    if (err instanceof McpError) {
      assert.is(err.code, ErrorCode.InvalidParams);
      assert.ok(err.message.includes("no oneOf alternative matched"));
      assert.ok(v.is(v.object({ code: v.literal("MCP_INVALID_ARGUMENTS") }), err.data));
    }
    assert.equal(r.bank.calls, []);
  } finally {
    await r.close();
  }
});

test("unknown and unlisted tools, and non-object arguments, are -32602 and never reach upstream", () =>
  withRig(async (r) => {
    for (const [name, args, code] of [
      ["no_such_tool", {}, "MCP_UNKNOWN_TOOL"],
      ["spell_word", {}, "MCP_UNKNOWN_TOOL"],
      ["echo", [1, 2], "MCP_INVALID_ARGUMENTS"],
      ["echo", "text", "MCP_INVALID_ARGUMENTS"],
    ] as const) {
      let err: unknown;
      await rawCall(r.client, name, args).catch((e: unknown) => {
        err = e;
      });
      assert.ok(err instanceof McpError, name);
      if (err instanceof McpError) {
        assert.is(err.code, ErrorCode.InvalidParams, name);
        assert.ok(v.is(v.object({ code: v.literal(code) }), err.data), name);
      }
    }
    assert.equal(r.bank.calls, []);
  }));

test("absent arguments are checked as {} and forwarded without an arguments key", () =>
  withRig(async (r) => {
    const refused = await rawCall(r.client, "strict_point");
    assert.ok(v.is(ErrorResult, refused));
    await rawCall(r.client, "anything_goes");
    assert.is(r.bank.calls.length, 1);
    assert.is(r.bank.calls[0]?.argumentsJson, undefined);
  }));

test("list_changed upstream: re-fetched, re-projected and announced downstream", () =>
  withRig(async (r) => {
    let announced = 0;
    r.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      announced++;
    });
    const generation = r.proxy.snapshot.generation;
    await r.bank.setTools(bankVariant(loadBankTools()));
    await waitFor("downstream list_changed", () => (announced > 0 ? true : undefined));
    assert.ok(r.proxy.snapshot.generation > generation);
    const names = (await r.client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("late_union"));
    assert.not.ok(names.includes("echo"));
    const late = (await r.client.listTools()).tools.find((t) => t.name === "late_union");
    assert.is(late?.inputSchema.type, "object");
    // The new union is enforced; the removed tool is unknown.
    assert.ok(v.is(ErrorResult, await rawCall(r.client, "late_union", { on: false })));
    await rawCall(r.client, "late_union", { off: true });
    let err: unknown;
    await rawCall(r.client, "echo", { text: "x" }).catch((e: unknown) => {
      err = e;
    });
    assert.ok(err instanceof McpError && err.code === ErrorCode.InvalidParams);
    assert.equal(
      r.bank.calls.map((c) => c.name),
      ["late_union"],
    );
  }));

test("a burst of refreshes costs one fetch", () =>
  withRig(async (r) => {
    const g = r.proxy.snapshot.generation;
    const all = await Promise.all([1, 2, 3, 4, 5].map(() => r.proxy.refresh()));
    assert.ok(all.every((s) => s === all[0]));
    assert.is(r.proxy.snapshot.generation, g + 1);
  }));

test("upstream JSON-RPC errors are relayed with code, message and data", async () => {
  const r = await rig({
    behaviour: () => {
      throw new McpError(-32042, "needs a browser", { url: "https://x.ai/consent" });
    },
  });
  try {
    let err: unknown;
    await rawCall(r.client, "echo", { text: "x" }).catch((e: unknown) => {
      err = e;
    });
    assert.ok(err instanceof McpError);
    // What the bank put on the wire is what the downstream client got.
    const sent = JSON.parse(r.bank.calls[0]?.errorJson ?? "null");
    assert.ok(v.is(v.object({ code: v.number(), message: v.string(), data: v.unknown() }), sent));
    if (err instanceof McpError && v.is(v.object({ message: v.string() }), sent)) {
      assert.is(err.code, -32042);
      assert.is(err.message, `MCP error -32042: ${sent.message}`);
      assert.equal(err.data, { url: "https://x.ai/consent" });
    }
  } finally {
    await r.close();
  }
});

test("an upstream result the MCP schema rejects becomes -32603, not a broken client", async () => {
  const r = await rig({ behaviour: () => ({ content: "not an array" }) });
  try {
    let err: unknown;
    await rawCall(r.client, "echo", { text: "x" }).catch((e: unknown) => {
      err = e;
    });
    assert.ok(err instanceof McpError && err.code === ErrorCode.InternalError);
    assert.is(r.bank.calls.length, 1);
  } finally {
    await r.close();
  }
});

test("progress for a downstream progressToken is relayed; a downstream cancel reaches upstream", async () => {
  let upstreamAborted = false;
  const r = await rig({
    behaviour: async ({ name, arguments: args }, extra) => {
      if (name === "anything_goes") {
        await new Promise<void>((resolve) =>
          extra.signal.addEventListener("abort", () => resolve()),
        );
        upstreamAborted = true;
        return { content: [] };
      }
      await extra.progress(1, 2);
      await extra.progress(2, 2);
      return { content: [{ type: "text", text: JSON.stringify(args) }] };
    },
  });
  try {
    const seen: number[] = [];
    await r.client.request(
      { method: "tools/call", params: { name: "echo", arguments: { text: "p" } } },
      z.unknown(),
      { onprogress: (p) => seen.push(p.progress) },
    );
    assert.equal(seen, [1, 2]);

    const controller = new AbortController();
    const call = r.client.request(
      { method: "tools/call", params: { name: "anything_goes", arguments: {} } },
      z.unknown(),
      { signal: controller.signal },
    );
    await waitFor("upstream received the call", () =>
      r.bank.calls.length >= 2 ? true : undefined,
    );
    controller.abort("stop");
    let aborted: unknown;
    await call.catch((e: unknown) => {
      aborted = e;
    });
    assert.ok(aborted !== undefined);
    await waitFor("upstream saw the cancel", () => (upstreamAborted ? true : undefined));
  } finally {
    await r.close();
  }
});

test("originalInMeta: rewritten tools carry their unprojected schema in _meta", async () => {
  const r = await rig({}, { originalInMeta: true });
  try {
    const { tools } = await r.client.listTools();
    const open = tools.find((t) => t.name === "open_target");
    const original = projectTools(loadBankTools()).tools.find(
      (t) => t.name === "open_target",
    )?.original;
    assert.is(
      canonical(open?._meta?.[ORIGINAL_INPUT_SCHEMA_META]),
      canonical(original?.inputSchema),
    );
    assert.is(tools.find((t) => t.name === "echo")?._meta, undefined);
  } finally {
    await r.close();
  }
});

test("downstream gets the upstream instructions; a cursor we never issued is refused", async () => {
  const r = await rig({ instructions: "use the bank" });
  try {
    assert.is(r.client.getInstructions(), "use the bank");
    let err: unknown;
    await r.client.listTools({ cursor: "page:4" }).catch((e: unknown) => {
      err = e;
    });
    assert.ok(err instanceof McpError && err.code === ErrorCode.InvalidParams);
  } finally {
    await r.close();
  }
});

test.run();
