export { encodeFrame } from "./encode-frame.ts";
export { type CreateSessionInput, createSession, type SocketSession } from "./session.ts";
export { Subscription, type SubscriptionContext, type SubscriptionStart } from "./subscription.ts";
export {
  CLOSE_CODES,
  DEFAULT_SOCKET_OPTIONS,
  type LiveEvent,
  type SessionTransport,
  type SocketDeps,
  type SocketOptions,
} from "./types.ts";
export {
  type AttachSocketOptions,
  attachSocketServer,
  type SocketAdapterDeps,
  type SocketServer,
} from "./ws-adapter.ts";
