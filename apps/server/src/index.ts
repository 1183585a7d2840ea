export { createApp } from "./app.ts";
export { createFailureLog, type FailureLog } from "./failure-log.ts";
export {
  type AttachGatewayOptions,
  attachGateway,
  type Gateway,
  type GatewayAdapterDeps,
} from "./gateway/index.ts";
export { MemoryGatewayDeps } from "./gateway/memory-gateway-deps.ts";
export { createMetrics, type Metrics } from "./metrics.ts";
export { buildOpenApiDocument } from "./openapi-document.ts";
export {
  DEFAULT_MAX_MESSAGE_CHARS,
  type LiveEvents,
  type ModelCatalog,
  type ServerDeps,
  type ThreadModelSetup,
} from "./server-deps.ts";
export { type RunningServer, startServer } from "./start-server.ts";
