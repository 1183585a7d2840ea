export { createApp, createFailureLog, type FailureLog } from "./app.ts";
export {
  type AttachGatewayOptions,
  attachGateway,
  type Gateway,
  type GatewayAdapterDeps,
} from "./gateway/index.ts";
export { MemoryGatewayDeps } from "./gateway/memory-gateway-deps.ts";
export { createMetrics, type Metrics } from "./metrics.ts";
export { openApiDocument } from "./openapi.ts";
export type { LiveEvents, ServerDeps } from "./server-deps.ts";
export { type RunningServer, startServer } from "./start-server.ts";
