import { activeTraceCarrier } from "@longrun/queue";
import { context, trace } from "@opentelemetry/api";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import { startTracing, tracesUrl } from "./tracing.ts";

describe("tracing", () => {
  it("is off without an OTLP endpoint: no exporter, no span recorded, no context in job payloads", async () => {
    const tracing = await startTracing("worker", {}, { env: {} });
    expect(tracing.enabled).toBe(false);
    const span = trace.getTracer("test").startSpan("step");
    expect(span.isRecording()).toBe(false);
    context.with(trace.setSpan(context.active(), span), () => expect(activeTraceCarrier()).toEqual({}));
    span.end();
    await tracing.shutdown();
  });

  it("is off when OTEL_SDK_DISABLED is true, even with an endpoint", async () => {
    const tracing = await startTracing(
      "serve",
      { otlpEndpoint: "http://127.0.0.1:4318" },
      { env: { OTEL_SDK_DISABLED: "true" } },
    );
    expect(tracing.enabled).toBe(false);
  });

  it("records spans with the process's service name and puts their context in job payloads when on", async () => {
    const exported: ReadableSpan[] = [];
    const exporter: SpanExporter = {
      export: (spans, done) => {
        exported.push(...spans);
        done({ code: 0 });
      },
      shutdown: async () => {},
    };
    const tracing = await startTracing("worker", {}, { exporter, env: {} });
    expect(tracing.enabled).toBe(true);
    const span = trace.getTracer("test").startSpan("step");
    const carrier = context.with(trace.setSpan(context.active(), span), () => activeTraceCarrier());
    expect(carrier.trace?.traceparent).toBe(
      `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`,
    );
    span.end();
    await tracing.shutdown();
    const [finished] = exported;
    expect(finished?.name).toBe("step");
    expect(finished?.resource.attributes["service.name"]).toBe("longrun-worker");
    // Shut down, the process is back to the no-op API.
    expect(trace.getTracer("test").startSpan("after").isRecording()).toBe(false);
  });

  it("sends to the traces endpoint, or to /v1/traces under the base endpoint", () => {
    expect(tracesUrl({})).toBeNull();
    expect(tracesUrl({ otlpEndpoint: "http://collector:4318" })).toBe("http://collector:4318/v1/traces");
    expect(
      tracesUrl({ otlpEndpoint: "http://collector:4318", otlpTracesEndpoint: "http://other:4318/traces" }),
    ).toBe("http://other:4318/traces");
  });
});
