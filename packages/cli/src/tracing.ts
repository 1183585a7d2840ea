import { context, propagation, trace } from "@opentelemetry/api";
import type { SpanExporter } from "@opentelemetry/sdk-trace";
import type { Config } from "./config/load-config.ts";

/** The process's tracing: whether it exports, and a flush of what is pending before the process ends. */
export interface Tracing {
  enabled: boolean;
  /** Exports the spans still buffered and stops the exporter (resolves at once when off). */
  shutdown(): Promise<void>;
}

/** The service name of each command's process, unless OTEL_SERVICE_NAME names another. */
const SERVICE_NAMES = {
  start: "longrun-embedded",
  serve: "longrun-server",
  worker: "longrun-worker",
} as const;

/** What tracing reads from the configuration (OTEL_* variables). */
export type TracingSettings = Partial<Pick<Config, "otlpEndpoint" | "otlpTracesEndpoint" | "serviceName">>;

/** Where spans go: the traces URL, or the base URL with `/v1/traces`; null when tracing is off. */
export function tracesUrl(settings: TracingSettings): string | null {
  if (settings.otlpTracesEndpoint) return settings.otlpTracesEndpoint;
  return settings.otlpEndpoint ? `${settings.otlpEndpoint}/v1/traces` : null;
}

/**
 * Installs OpenTelemetry tracing for this process when an OTLP endpoint is configured: spans batched
 * (OTEL_BSP_SCHEDULE_DELAY ms, default 5000) and exported over OTLP/HTTP as JSON, W3C trace context
 * propagated in requests, job payloads and bus messages. Otherwise it installs nothing, and every span
 * the packages start is the API's no-op span. `exporter` replaces the OTLP one (tests, the bench).
 */
export async function startTracing(
  role: keyof typeof SERVICE_NAMES,
  settings: TracingSettings,
  options: { exporter?: SpanExporter; env?: NodeJS.ProcessEnv } = {},
): Promise<Tracing> {
  const url = tracesUrl(settings);
  if (!options.exporter && url === null) return { enabled: false, shutdown: async () => {} };
  const env = options.env ?? process.env;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true")
    return { enabled: false, shutdown: async () => {} };
  // Loaded only when tracing is on: a process without an endpoint never loads the SDK.
  const [
    { AsyncLocalStorageContextManager },
    { W3CTraceContextPropagator },
    { OTLPTraceExporter },
    { resourceFromAttributes },
    { BatchSpanProcessor, TracerProvider },
  ] = await Promise.all([
    import("@opentelemetry/context-async-hooks"),
    import("@opentelemetry/core"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace"),
  ]);
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      "service.name": settings.serviceName ?? SERVICE_NAMES[role],
      "service.instance.id": `${role}-${process.pid}`,
    }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: options.exporter ?? new OTLPTraceExporter({ url: url ?? undefined }),
        ...(Number.isFinite(delay) && delay > 0 ? { scheduledDelayMillis: delay } : {}),
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    enabled: true,
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
