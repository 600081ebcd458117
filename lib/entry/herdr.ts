/**
 * grok-seat/herdr: the Herdr socket client (one request per connection, replies parsed with
 * valibot, an allow-list that makes input injection impossible to call), discovery, the argv
 * pane launch (lib/herdr), and the pane proof's I/O: session descriptor, bind, verify, exit watch
 * (lib/observe).
 */
export {
  DEFAULT_MAX_REPLY_BYTES,
  DEFAULT_TIMEOUT_MS,
  HerdrClient,
  type HerdrClientOptions,
  MAX_REQUEST_BYTES,
  type RequestOptions,
} from "../herdr/client.js";
export {
  type DiscoveredSocket,
  type DiscoveryInput,
  discoverSocket,
  herdrConfigDir,
  isValidSessionName,
  type SocketSource,
} from "../herdr/discovery.js";
export { HerdrError, type HerdrErrorCode } from "../herdr/herdr-error.js";
export { type LaunchPaneOptions, type LaunchResult, launchPane } from "../herdr/launch.js";
export {
  ALLOWED_METHODS,
  type HerdrMethod,
  type HerdrParams,
  type HerdrResult,
  INJECTION_METHODS,
} from "../herdr/methods.js";
export { HerdrSubscription, type SubscriptionEnd } from "../herdr/subscription.js";
export type { HerdrEvent, SubscriptionSpec } from "../herdr/wire-events.js";
export type { PaneInfo, PaneProcessInfo } from "../herdr/wire-pane.js";
export { readSessionDescriptor } from "../observe/herdr-descriptor.js";
export {
  type BindPaneOptions,
  bindPane,
  observeAgentProcess,
  observeBoundPane,
  type PaneBinding,
  type PaneVerification,
  verifyPane,
} from "../observe/pane.js";
export {
  type ExitVerdict,
  type ExitWatchOptions,
  FULL_REPLAY_MS,
  type HerdrExitSighting,
  type HerdrNoExitReason,
  type KernelExitSighting,
  type PaneExitWatch,
  watchPaneExit,
} from "../observe/pane-exit.js";
export { type SessionDescriptor, SessionDescriptorSchema } from "../proof/session-descriptor.js";
