export { type BackoffOptions, DEFAULT_BACKOFF, reconnectDelay } from "./backoff.ts";
export { createClient, type LongrunClient, socketUrl } from "./client.ts";
export type { ClientOptions } from "./client-options.ts";
export type {
  ConnectionStatus,
  ResyncInfo,
  SubscribeFilter,
  SubscriptionHandle,
  SubscriptionHandlers,
} from "./client-subscription.ts";
export {
  AbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  ContextExhaustedError,
  InternalServerError,
  LongrunError,
  // The former name, kept so existing programs still compile.
  LongrunError as LongrunApiError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  TimeoutError,
} from "./errors.ts";
export type { EventStream, StreamOptions } from "./event-stream.ts";
export type { RequestOptions } from "./http.ts";
export { type RestApi, type RestEndpoint, restEndpoints } from "./rest-api.ts";
export type { RunStreamOptions, RunsApi, WaitOptions } from "./runs.ts";
export type { WebSocketConstructor, WebSocketLike } from "./websocket-like.ts";
