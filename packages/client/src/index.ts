export { type BackoffOptions, DEFAULT_BACKOFF, reconnectDelay } from "./backoff.ts";
export { type ClientOptions, createClient, type LongrunClient, socketUrl } from "./client.ts";
export type {
  ConnectionStatus,
  ResyncInfo,
  SubscribeFilter,
  SubscriptionHandle,
  SubscriptionHandlers,
} from "./client-subscription.ts";
export { LongrunApiError } from "./errors.ts";
export { type RestApi, type RestEndpoint, restEndpoints } from "./rest-api.ts";
export type { WebSocketConstructor, WebSocketLike } from "./websocket-like.ts";
