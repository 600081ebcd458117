import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  checkSessionInfo,
  initializeParams,
  isUnknownSessionError,
  parseAttachResult,
  parseInitializeResult,
  resumeParams,
} from "../../lib/acp/handshake.js";
import { codeOf } from "../helpers/error-code.js";

const S = "0198b0c2-1111-7222-8333-444455556666";

/** The call's error code; null when it returns (any other throw fails the test). */
const code = (fn: () => unknown): string | null => codeOf(fn, null);

// initialize result shaped as acp_agent.rs `initialize` builds it (docs/design/grok-leader-protocol.md §9).
const init = {
  protocolVersion: 1,
  agentCapabilities: {
    loadSession: true,
    promptCapabilities: { embeddedContext: true },
    mcpCapabilities: { http: true, sse: true },
    sessionCapabilities: { close: {}, list: {}, resume: {} },
  },
  authMethods: [{ id: "cached_token", name: "Cached" }],
  _meta: { grokShell: true, agentVersion: "1.0.48", currentWorkingDirectory: "/home/u/proj" },
};

test("initialize params: protocol 1, clientType grok-pager, no other global switches", () => {
  assert.equal(initializeParams(), {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    _meta: { clientType: "grok-pager" },
  });
});

test("initialize result: version, cwd and capabilities are read", () => {
  assert.equal(parseInitializeResult(init), {
    protocolVersion: 1,
    loadSession: true,
    resume: true,
    agentVersion: "1.0.48",
    leaderCwd: "/home/u/proj",
  });
  const noVersion = { ...init, _meta: { grokShell: true } };
  assert.is(parseInitializeResult(noVersion).agentVersion, null);
});

test("initialize refusals: protocol, loadSession, resume, shape", () => {
  assert.is(
    code(() => parseInitializeResult({ ...init, protocolVersion: 2 })),
    "ACP_PROTOCOL_UNSUPPORTED",
  );
  assert.is(
    code(() =>
      parseInitializeResult({
        ...init,
        agentCapabilities: { ...init.agentCapabilities, loadSession: false },
      }),
    ),
    "ACP_LOAD_SESSION_UNSUPPORTED",
  );
  assert.is(
    code(() =>
      parseInitializeResult({
        ...init,
        agentCapabilities: { loadSession: true, sessionCapabilities: { close: {} } },
      }),
    ),
    "ACP_RESUME_UNSUPPORTED",
  );
  assert.is(
    code(() => parseInitializeResult({ protocolVersion: "1" })),
    "ACP_INITIALIZE_INVALID",
  );
});

test("residency probe: empty result is SESSION_UNKNOWN, another cwd is SESSION_CWD_MISMATCH", () => {
  checkSessionInfo({ result: { sessionId: S, cwd: "/p", turns: 0 } }, S, "/p");
  assert.is(
    code(() => checkSessionInfo({ result: {} }, S, "/p")),
    "SESSION_UNKNOWN",
  );
  assert.is(
    code(() => checkSessionInfo({ result: null }, S, "/p")),
    "SESSION_UNKNOWN",
  );
  assert.is(
    code(() => checkSessionInfo({ result: { sessionId: "other", cwd: "/p" } }, S, "/p")),
    "SESSION_UNKNOWN",
  );
  assert.is(
    code(() => checkSessionInfo({ result: { sessionId: S, cwd: "/q" } }, S, "/p")),
    "SESSION_CWD_MISMATCH",
  );
  assert.is(
    code(() => checkSessionInfo("nope", S, "/p")),
    "ACP_SESSION_INFO_INVALID",
  );
});

test("resume params: exact id, the TUI cwd, an explicit empty MCP list, yoloMode and autoMode false", () => {
  assert.equal(resumeParams(S, "/p"), {
    sessionId: S,
    cwd: "/p",
    mcpServers: [],
    _meta: { yoloMode: false, autoMode: false },
  });
});

test("attach result: models, session config and running prompt; another session id refuses", () => {
  const r = parseAttachResult(
    {
      models: {
        currentModelId: "grok-build",
        availableModels: [{ modelId: "grok-build", name: "B" }],
      },
      _meta: {
        sessionId: S,
        "x.ai/runningPromptId": "p-running",
        "x.ai/sessionConfig": {
          options: [{ id: "high", category: "mode", label: "High", selected: true }],
        },
      },
    },
    S,
  );
  assert.is(r.runningPromptId, "p-running");
  assert.is(r.models?.currentModelId, "grok-build");
  assert.is(r.sessionConfig?.options.length, 1);
  assert.equal(parseAttachResult({}, S), {
    sessionId: S,
    models: null,
    sessionConfig: null,
    runningPromptId: null,
  });
  assert.is(
    code(() => parseAttachResult({ _meta: { sessionId: "other" } }, S)),
    "SESSION_UNKNOWN",
  );
});

test("unknown-session errors as the agent reports them", () => {
  assert.ok(
    isUnknownSessionError({ code: -32602, message: "Invalid params", data: "unknown session id" }),
  );
  assert.ok(
    isUnknownSessionError({
      code: -32603,
      message: "Path not found.",
      data: { code: "FS_NOT_FOUND", detail: "x" },
    }),
  );
  assert.not.ok(isUnknownSessionError({ code: -32603, message: "x", data: { code: "FS_OTHER" } }));
  assert.not.ok(isUnknownSessionError({ code: -32002, message: "leader_starting" }));
});

test.run();
