export { createApp, createFailureLog, type FailureLog } from "./app.ts";
export { createMetrics, type Metrics } from "./metrics.ts";
export { openApiDocument } from "./openapi.ts";
export type { LiveEvents, ServerDeps } from "./server-deps.ts";
export { type RunningServer, startServer } from "./start-server.ts";
