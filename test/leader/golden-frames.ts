/**
 * Golden frame bodies, each exactly as serde_json writes it (struct field order, compact). Provenance:
 * the fixture list at the end of docs/design/grok-leader-protocol.md ("Test fixtures worth reproducing"), with
 * every shape checked against `leader/protocol.rs` (`ClientMessage`, `ServerMessage`,
 * `ControlCommand`, `ControlPayload`), `leader/server.rs` (error codes 1-3, `broadcast_shutdown`) and
 * `xai-grok-shell-base/src/cpu_profile.rs` (`ControlError`). `<scratch>` paths are literal.
 */
export interface Golden {
  readonly name: string;
  readonly side: "client" | "server";
  readonly json: string;
}

export const GOLDEN: readonly Golden[] = [
  // §2 example: 15 bytes, frame 00 00 00 0F 7B 22 74 79 …
  { name: "ping", side: "client", json: '{"type":"ping"}' },
  { name: "pong", side: "server", json: '{"type":"pong"}' },
  { name: "disconnect", side: "client", json: '{"type":"disconnect"}' },
  // fixture 2, client side
  {
    name: "register",
    side: "client",
    json: '{"type":"register","client_type":"my-lib","mode":"stdio","capabilities":{"yolo_mode":false,"auto_mode":false,"default_model":null,"client_version":null,"code_nav_enabled":false,"terminal":false,"fs_read":false,"fs_write":false,"status_line":true}}',
  },
  // fixture 2, leader side
  {
    name: "registered-ready",
    side: "server",
    json: '{"type":"registered","client_id":2,"ready":true,"leader_protocol_version":1,"leader_binary_version":"1.0.48","leader_capabilities":{"control_v1":true,"runtime_cpu_profile":false,"profile_formats":[],"workspace_exposure":true,"relaunch_v1":true}}',
  },
  // fixture 3
  {
    name: "registered-not-ready",
    side: "server",
    json: '{"type":"registered","client_id":3,"ready":false,"leader_protocol_version":1,"leader_binary_version":"1.0.48","leader_capabilities":{"control_v1":true,"runtime_cpu_profile":false,"profile_formats":[],"workspace_exposure":true,"relaunch_v1":true}}',
  },
  { name: "leader_ready", side: "server", json: '{"type":"leader_ready"}' },
  // fixture 4
  {
    name: "error-1",
    side: "server",
    json: '{"type":"error","code":1,"message":"Expected Register message"}',
  },
  {
    name: "error-2",
    side: "server",
    json: '{"type":"error","code":2,"message":"Already registered"}',
  },
  {
    name: "error-3",
    side: "server",
    json: '{"type":"error","code":3,"message":"Registration timeout"}',
  },
  // fixture 6
  {
    name: "control-get_leader_info",
    side: "client",
    json: '{"type":"control","request_id":"1","command":{"type":"get_leader_info"}}',
  },
  {
    name: "control_result-leader_info",
    side: "server",
    json: '{"type":"control_result","request_id":"1","result":{"Ok":{"type":"leader_info","pid":4242,"socket_path":"<scratch>","lock_path":"<scratch>","ws_url_suffix":"","leader_protocol_version":1,"leader_binary_version":"1.0.48","profiling_supported":false,"profiling_compiled_in":false,"cpu_profile_active":false,"cpu_profile_stopping":false,"profile_started_at":null,"profile_formats":[]}}}',
  },
  {
    name: "control_result-err",
    side: "server",
    json: '{"type":"control_result","request_id":"1","result":{"Err":{"code":"internal_error","message":"boom"}}}',
  },
  // fixture 7
  {
    name: "control-relaunch_for_update",
    side: "client",
    json: '{"type":"control","request_id":"2","command":{"type":"relaunch_for_update","to_version":"1.0.49"}}',
  },
  {
    name: "control_result-relaunching",
    side: "server",
    json: '{"type":"control_result","request_id":"2","result":{"Ok":{"type":"relaunching","from_version":"1.0.48","to_version":"1.0.49","grace_ms":10000}}}',
  },
  {
    name: "control_result-relaunch_declined",
    side: "server",
    json: '{"type":"control_result","request_id":"2","result":{"Ok":{"type":"relaunch_declined","reason":"already running 1.0.49 or newer"}}}',
  },
  {
    name: "shutting_down",
    side: "server",
    json: '{"type":"shutting_down","reason":"auto_update","delay_ms":0}',
  },
  { name: "shutdown", side: "server", json: '{"type":"shutdown"}' },
  // §4 envelope, both directions
  {
    name: "acp-client",
    side: "client",
    json: '{"type":"acp","payload":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"method\\":\\"initialize\\",\\"params\\":{\\"protocolVersion\\":1}}"}',
  },
  {
    name: "acp-server",
    side: "server",
    json: '{"type":"acp","payload":"{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"x.ai/leader/version_mismatch\\",\\"params\\":{\\"clientVersion\\":\\"a\\",\\"leaderVersion\\":\\"b\\",\\"message\\":\\"m\\"}}"}',
  },
];

/** The frame of a golden body: 4-byte big-endian length + UTF-8 bytes. */
export function goldenFrame(json: string): Buffer {
  const body = Buffer.from(json, "utf8");
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.length, 0);
  return Buffer.concat([header, body]);
}
