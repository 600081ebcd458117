/**
 * The operator bank as a process (a real child for the stdio and HTTP regression tests).
 *
 *   node --import tsx test/sim/mcp-bank/main.ts [--log FILE] [--http PORT] [--page-size N]
 *                                               [--bearer-env VAR]
 *
 * stdio by default; `--http PORT` serves streamable HTTP on 127.0.0.1 (0 = any port);
 * `--bearer-env VAR` (HTTP only) requires `Authorization: Bearer <$VAR>` on every request (http.ts).
 * `--log`
 * appends one JSON object per line: `{"event":"ready","pid":…,"url"?:…}`, then
 * `{"event":"received"|"answered", …BankCall}` for every tools/call, and
 * `{"event":"tools_changed","count":…}`. SIGUSR2 switches to bankVariant() and back, sending
 * notifications/tools/list_changed to every client.
 */
import { appendFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as v from "valibot";
import { serveLoopbackHttp } from "../../../lib/mcp/loopback-http.js";
import { bankVariant, OperatorBank } from "./bank.js";
import { loadBankTools } from "./fixture.js";
import { serveBankHttp } from "./http.js";

const { values } = parseArgs({
  options: {
    log: { type: "string" },
    http: { type: "string" },
    "page-size": { type: "string" },
    "bearer-env": { type: "string" },
  },
  strict: true,
});
const Int = v.pipe(v.string(), v.regex(/^[0-9]+$/), v.transform(Number));
const logFile = values.log;
const log = (event: string, data: object): void => {
  if (logFile !== undefined) appendFileSync(logFile, `${JSON.stringify({ event, ...data })}\n`);
};

const original = loadBankTools();
const pageSize = values["page-size"] === undefined ? undefined : v.parse(Int, values["page-size"]);
const bank = new OperatorBank({
  tools: original,
  instructions: "operator bank (simulator)",
  ...(pageSize === undefined ? {} : { pageSize }),
  onCall: (call, phase) => log(phase, call),
});

let variant = false;
process.on("SIGUSR2", () => {
  variant = !variant;
  const tools = variant ? bankVariant(original) : original;
  void bank.setTools(tools).then(() => log("tools_changed", { count: tools.length }));
});

if (values.http === undefined) {
  await bank.connect(new StdioServerTransport());
  // The SDK stdio transport does not notice end of input; a closed stdin ends the bank.
  process.stdin.once("end", () => process.exit(0));
  log("ready", { pid: process.pid });
} else if (values["bearer-env"] !== undefined) {
  const token = process.env[values["bearer-env"]];
  if (token === undefined || token === "") throw new Error(`${values["bearer-env"]} is not set`);
  const http = await serveBankHttp({ bank, token, port: v.parse(Int, values.http) });
  process.once("SIGTERM", () => void http.close().then(() => process.exit(0)));
  log("ready", { pid: process.pid, url: http.url.href });
  process.stderr.write(`operator-bank: listening ${http.url.href} (bearer)\n`);
} else {
  const http = await serveLoopbackHttp({
    port: v.parse(Int, values.http),
    connect: async (transport) => {
      await bank.connect(transport);
    },
  });
  process.once("SIGTERM", () => void http.close().then(() => process.exit(0)));
  log("ready", { pid: process.pid, url: http.url.href });
  process.stderr.write(`operator-bank: listening ${http.url.href}\n`);
}
