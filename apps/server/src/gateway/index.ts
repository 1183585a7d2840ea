export { encodeFrame } from "./encode-frame.ts";
export { type CreateSessionInput, createSession, type GatewaySession } from "./session.ts";
export { Subscription, type SubscriptionContext, type SubscriptionStart } from "./subscription.ts";
export {
  CLOSE_CODES,
  DEFAULT_GATEWAY_OPTIONS,
  type GatewayDeps,
  type GatewayOptions,
  type LiveEvent,
  type SessionTransport,
} from "./types.ts";
export {
  type AttachGatewayOptions,
  attachGateway,
  type Gateway,
  type GatewayAdapterDeps,
} from "./ws-adapter.ts";
