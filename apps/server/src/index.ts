export { createApp } from "./app.ts";
export { createFailureLog, type FailureLog } from "./failure-log.ts";
export { createMetrics, type Metrics } from "./metrics.ts";
export { startMetricsServer } from "./metrics-server.ts";
export { buildOpenApiDocument } from "./openapi-document.ts";
export {
  DEFAULT_MAX_MESSAGE_CHARS,
  type LiveEvents,
  type ModelCatalog,
  type ServerDeps,
  type ThreadModelSetup,
} from "./server-deps.ts";
export { MemorySocketDeps } from "./socket/memory-socket-deps.ts";
export {
  type AttachSocketOptions,
  attachSocketServer,
  type SocketAdapterDeps,
  type SocketServer,
} from "./socket/ws-adapter.ts";
export { type RunningServer, startServer } from "./start-server.ts";
