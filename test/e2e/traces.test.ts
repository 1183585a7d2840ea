import { createClient, type LongrunClient } from "@longrun/client";
import { openStore } from "@longrun/store";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { WebSocket } from "ws";
import { type DistributedCluster, startDistributedCluster } from "./support/distributed-cluster.ts";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "./support/otlp-receiver.ts";

// Issue 36: one run through `longrun serve` and two `longrun worker` processes, each exporting its spans
// over OTLP/HTTP to a receiver in this process, is one trace: request → admission → job → step → model
// call and tool call, and a compaction with its summary call, with the GenAI attributes.

let receiver: OtlpReceiver;
let cluster: DistributedCluster;
let client: LongrunClient;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  cluster = await startDistributedCluster({
    workers: 2,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100" },
  });
  client = createClient({ baseUrl: cluster.url, token: cluster.token, WebSocket: WebSocket as never });
}, 120_000);
afterAll(async () => {
  client?.close();
  await cluster?.close();
  await receiver?.close();
});

const SERVER = "longrun-server";
const WORKER = "longrun-worker";

describe("one trace per run across processes", () => {
  it("links request → admission → job → step → model call and tool, and a compaction with its summary", async () => {
    const thread = await client.threads.create({
      model: "sim",
      maxInputTokens: 8_000,
      simSteps: 30,
      // No background summaries: the compaction job makes its summary call itself.
      profile: { backgroundRatio: 0 },
      task: "Explore this project and report.",
    });
    const runId = thread.runs[0]?.id ?? "";
    const finished = await client.runs.wait(runId);
    expect(finished.status).toBe("completed");

    // The first job is recorded on the run.
    const store = await openStore({ url: cluster.databaseUrl });
    const jobId = (await store.runs.get(runId))?.jobId;
    await store.close();
    expect(jobId).toBeTruthy();

    // Every process exports within its batch delay; wait until the run's last step and its compaction arrived.
    const spansOf = (traceId: string) => receiver.spans.filter((span) => span.traceId === traceId);
    const request = () =>
      receiver.spans.find((span) => span.service === SERVER && span.name === "POST /v1/threads");
    await vi.waitFor(
      () => {
        const root = request();
        expect(root).toBeDefined();
        const spans = spansOf(root?.traceId ?? "");
        expect(spans.some((span) => span.name === "longrun.compaction")).toBe(true);
        expect(
          spans.some(
            (span) => span.name === "longrun.step" && span.attributes["longrun.step.outcome"] === "completed",
          ),
        ).toBe(true);
        // A span ends (and is exported) before the span around it: wait until every parent arrived too.
        const ids = new Set(spans.map((span) => span.spanId));
        expect(spans.filter((span) => span.parentSpanId !== "" && !ids.has(span.parentSpanId))).toEqual([]);
      },
      { timeout: 30_000, interval: 100 },
    );
    const root = request() as ReceivedSpan;
    const spans = spansOf(root.traceId);
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const parentOf = (span: ReceivedSpan) => byId.get(span.parentSpanId);
    const ancestors = (span: ReceivedSpan) => {
      const chain: ReceivedSpan[] = [];
      for (let at = parentOf(span); at; at = parentOf(at)) chain.push(at);
      return chain;
    };

    // One trace: every span that names this run is in it, from the server and the workers.
    const ofRun = receiver.spans.filter((span) => span.attributes["longrun.run.id"] === runId);
    expect(new Set(ofRun.map((span) => span.traceId))).toEqual(new Set([root.traceId]));
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set([SERVER, WORKER]));
    expect(root.parentSpanId).toBe("");
    expect(root.attributes["http.response.status_code"]).toBe(201);
    expect(root.attributes["longrun.request.id"]).toBeTruthy();

    // request → admission → first job (the one recorded on the run) → step.
    const admission = spans.find((span) => span.name === "longrun.run.admit");
    expect(admission && parentOf(admission)).toBe(root);
    expect(admission?.attributes["longrun.run.id"]).toBe(runId);
    const firstJob = spans.find((span) => span.attributes["messaging.message.id"] === jobId);
    expect(firstJob?.name).toBe("process agent.step");
    expect(firstJob?.service).toBe(WORKER);
    expect(firstJob && parentOf(firstJob)).toBe(admission);

    // step → model call, step → tool call; each step's job continues the trace of the step before it.
    const stepCalls = spans.filter(
      (span) => span.name.startsWith("chat ") && span.attributes["longrun.model_call.purpose"] === "step",
    );
    expect(stepCalls.length).toBeGreaterThan(10);
    for (const call of stepCalls) {
      const [step, job] = ancestors(call);
      expect(step?.name).toBe("longrun.step");
      expect(job?.name).toBe("process agent.step");
      expect(ancestors(call).at(-1)).toBe(root);
    }
    const tools = spans.filter((span) => span.name.startsWith("execute_tool "));
    expect(tools.length).toBeGreaterThan(5);
    for (const tool of tools) {
      expect(parentOf(tool)?.name).toBe("longrun.step");
      expect(tool.attributes["gen_ai.operation.name"]).toBe("execute_tool");
      expect(tool.attributes["gen_ai.tool.call.id"]).toBeTruthy();
    }

    // GenAI attributes of the model calls, with plausible figures.
    for (const call of stepCalls) {
      expect(call.kind).toBe(3); // CLIENT
      expect(call.attributes["gen_ai.operation.name"]).toBe("chat");
      // The sim's model name carries the thread's script settings (`sim:steps=30:ctx=8000`).
      expect(call.name).toBe(`chat ${call.attributes["gen_ai.request.model"]}`);
      expect(call.attributes["gen_ai.request.model"]).toMatch(/^sim/);
      expect(call.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(100);
      expect(call.attributes["gen_ai.usage.input_tokens"]).toBeLessThan(8_000);
      expect(call.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
      expect(call.attributes["gen_ai.response.id"]).toEqual(expect.any(String));
      expect(call.attributes["gen_ai.response.finish_reasons"]).toEqual([
        expect.stringMatching(/^(stop|tool_calls)$/),
      ]);
    }
    expect(
      stepCalls.some((call) => typeof call.attributes["gen_ai.usage.cache_read.input_tokens"] === "number"),
    ).toBe(true);

    // A compaction in its own job, its summary call and its stages inside it, what it saved on it.
    const compaction = spans.find(
      (span) =>
        span.name === "longrun.compaction" && span.attributes["longrun.compaction.outcome"] === "compacted",
    ) as ReceivedSpan;
    expect(compaction).toBeDefined();
    expect(parentOf(compaction)?.name).toBe("process agent.compact");
    expect(ancestors(compaction).at(-1)).toBe(root);
    expect(compaction.attributes["longrun.compaction.strategy"]).toBe("partial");
    expect(compaction.attributes["longrun.compaction.trigger"]).toBe("auto");
    const before = compaction.attributes["longrun.compaction.tokens_before"] as number;
    const after = compaction.attributes["longrun.compaction.tokens_after"] as number;
    expect(after).toBeGreaterThan(0);
    expect(before).toBeGreaterThan(after);
    expect(compaction.attributes["longrun.compaction.saved_tokens"]).toBe(before - after);
    const children = spans.filter((span) => parentOf(span) === compaction);
    const summary = children.find((span) => span.attributes["longrun.model_call.purpose"] === "summary");
    expect(summary?.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
    expect(summary?.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    expect(summary?.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
    expect(children.map((span) => span.name)).toEqual(
      expect.arrayContaining(["longrun.compaction.offload", "longrun.compaction.record"]),
    );
    // No span of a run that succeeded is an error.
    expect(spans.filter((span) => span.statusCode === 2).map((span) => span.name)).toEqual([]);
  }, 120_000);
});
