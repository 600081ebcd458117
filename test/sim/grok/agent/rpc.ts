/**
 * JSON-RPC lines as the agent-client-protocol crate writes them: `jsonrpc` first, then `id`,
 * then `method`/`params` or `result`/`error`; errors are `{code, message, data?}`. Extension
 * methods and notifications carry a `_` prefix on the wire with direct params
 * (ExtRequest/ExtNotification are transparent over params).
 */

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export function response(id: unknown, result: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result });
}

/** A result serialized elsewhere (serde RawValue), embedded verbatim. */
export class RawResult {
  readonly json: string;
  constructor(json: string) {
    this.json = json;
  }
}

export function rawResponse(id: unknown, result: RawResult): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result.json}}`;
}

export function errorResponse(id: unknown, error: RpcError): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}

export function notification(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", method, params });
}

export function request(id: number, method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

export function invalidParams(data: unknown): RpcError {
  return { code: -32602, message: "Invalid params", data };
}

export function internalError(data: unknown): RpcError {
  return { code: -32603, message: "Internal error", data };
}

export const METHOD_NOT_FOUND: RpcError = { code: -32601, message: "Method not found" };

/** acp_agent.rs `ext_method`: an `_`-prefixed method no handler claims. */
export function unknownExtMethod(method: string): RpcError {
  return { ...METHOD_NOT_FOUND, data: `unknown ACP extension method: ${method}` };
}

/** persistence.rs io_error_to_acp for a missing session directory. */
export const SESSION_NOT_FOUND: RpcError = {
  code: -32603,
  message: "Path not found.",
  data: { code: "FS_NOT_FOUND", detail: "No such file or directory (os error 2)" },
};

export class RpcFailure extends Error {
  readonly error: RpcError;
  constructor(error: RpcError) {
    super(error.message);
    this.error = error;
  }
}
