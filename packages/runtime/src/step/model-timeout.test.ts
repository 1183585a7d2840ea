import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type ChatRequestBody, parseChatRequest } from "@longrun/openai-compat";
import { contentText } from "@longrun/protocol";
import { simModelName, toolDefinitions } from "@longrun/sim-model";
import { afterEach, describe, expect, it } from "vitest";
import { runClientTurn } from "../client-turns/client-turn.ts";
import { ClientTurnError } from "../client-turns/client-turn-error.ts";
import { createHarness, type Harness } from "../harness.test-helper.ts";

/** A real model endpoint that misbehaves: `handle` decides what each request gets (often nothing). */
async function startEndpoint(
  handle: (request: IncomingMessage, response: ServerResponse, body: string) => void,
) {
  const received: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    request.on("end", () => {
      received.push(body);
      handle(request, response, body);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    received,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/** Passes a request on to the sim and its answer back. */
function forward(url: string, body: string, response: ServerResponse): void {
  void fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sim" },
    body,
  }).then(async (upstream) => {
    response.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "" });
    response.end(Buffer.from(await upstream.arrayBuffer()));
  });
}

let harness: Harness | undefined;
let endpoint: Awaited<ReturnType<typeof startEndpoint>> | undefined;
afterEach(async () => {
  await harness?.close();
  await endpoint?.close();
  harness = undefined;
  endpoint = undefined;
});

// Two attempts, retried at once: what the job's retry policy does with a timeout, not how long it waits.
const twoAttempts = { "agent.step": { attempts: 2, backoffMs: 10 } };

describe("model calls are bounded", () => {
  it("fails a step whose model never answers, marks the run stuck with the reason, retries, then fails the run", async () => {
    // Accepts the request and never answers: no headers, no byte.
    endpoint = await startEndpoint(() => {});
    harness = await createHarness({ modelBaseURL: endpoint.baseURL, policy: twoAttempts });
    const { runId } = await harness.startThread("Explore the project.", {
      modelFirstByteTimeoutMs: 200,
      modelTimeoutMs: 60_000,
    });
    const stuck = await harness.waitForEvent((event) => event.type === "run.stuck" && event.runId === runId);
    expect((stuck.data as { reason: string }).reason).toBe(
      "model did not answer within 200 ms; the step is retried (attempt 2 of 2)",
    );
    const end = await harness.waitForRunEnd(runId);
    expect(end.type).toBe("run.failed");
    expect((end.data as { error: { message: string } }).error.message).toBe(
      "step_failed: model did not answer within 200 ms",
    );
    // The retried attempt moved the run again before it failed: the stuck mark was taken back.
    const types = harness.events.filter((event) => event.runId === runId).map((event) => event.type);
    expect(types.indexOf("run.resumed")).toBeGreaterThan(types.indexOf("run.stuck"));
    // One request per attempt: a timeout is not retried silently inside the step.
    expect(endpoint.received).toHaveLength(2);
    expect((await harness.store.runs.get(runId))?.status).toBe("failed");
  });

  it("fails a step whose model starts an answer and never finishes it", async () => {
    // Headers and one chunk at once (the first byte), then silence.
    endpoint = await startEndpoint((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = {
        id: "chatcmpl-stall",
        object: "chat.completion.chunk",
        created: 0,
        model: "stall",
        choices: [{ index: 0, delta: { role: "assistant", content: "Let me" }, finish_reason: null }],
      };
      response.write(`data: ${JSON.stringify(chunk)}\n\n`);
    });
    harness = await createHarness({ modelBaseURL: endpoint.baseURL, policy: twoAttempts });
    const { runId } = await harness.startThread("Explore the project.", {
      modelFirstByteTimeoutMs: 60_000,
      modelTimeoutMs: 300,
    });
    const end = await harness.waitForRunEnd(runId);
    expect((end.data as { error: { message: string } }).error.message).toBe(
      "step_failed: model did not finish its answer within 300 ms",
    );
    expect(endpoint.received).toHaveLength(2);
  });

  it("fails a summary whose model never answers with compaction.failed and the reason", async () => {
    let sim = "";
    // In front of the sim: agent calls pass through; summaries never answer — a standalone one carries
    // no tools, one that continues the agent's request carries them with tool_choice "none".
    endpoint = await startEndpoint((request, response, body) => {
      const sent = JSON.parse(body) as { tools?: unknown[]; tool_choice?: unknown };
      if (!sent.tools || sent.tool_choice === "none") return;
      forward(`${sim}${request.url?.replace(/^\/v1/, "")}`, body, response);
    });
    harness = await createHarness({ simSteps: 60, maxInputTokens: 8_000, modelBaseURL: endpoint.baseURL });
    sim = harness.simBaseURL;
    // A compaction's own summary (no background summary before it).
    const { runId } = await harness.startThread("Explore everything in the project.", {
      modelTimeoutMs: 300,
      backgroundRatio: 0,
    });
    const failed = await harness.waitForEvent((event) => event.type === "compaction.failed");
    expect((failed.data as { reason: string }).reason).toBe(
      "summary failed: model did not answer within 300 ms",
    );
    await harness.runControl.cancel(runId);
  });

  it("answers a gateway client whose upstream never answers with a 502 and the reason", async () => {
    let sim = "";
    let silent = false;
    endpoint = await startEndpoint((request, response, body) => {
      if (!silent) forward(`${sim}${request.url?.replace(/^\/v1/, "")}`, body, response);
    });
    harness = await createHarness({ modelBaseURL: endpoint.baseURL });
    sim = harness.simBaseURL;
    const history: ChatRequestBody["messages"] = [{ role: "user", content: "Explore the project" }];
    const turn = () =>
      runClientTurn(
        harness!.deps,
        { workspaceFor: async () => harness!.workspace },
        {
          tenantId: "t1",
          turn: parseChatRequest({
            model: simModelName({ steps: 5 }),
            messages: history,
            tools: toolDefinitions(["read_file", "list_dir"]),
          }),
          header: (name) => (name === "x-longrun-conversation" ? "silent-upstream" : undefined),
          signal: new AbortController().signal,
          client: "test",
        },
        { begin: () => {}, event: () => {} },
      );
    // The first turn makes the conversation's thread; its profile then gets a short first-byte timeout.
    const first = await turn();
    const thread = await harness.store.threads.get(first.threadId);
    await harness.store.threads.update(first.threadId, {
      modelProfile: { ...thread!.modelProfile, modelFirstByteTimeoutMs: 200 },
    });
    const calls = first.answer.message.toolCalls ?? [];
    history.push({
      role: "assistant",
      content: contentText(first.answer.message.content),
      tool_calls: calls,
    });
    for (const call of calls) history.push({ role: "tool", tool_call_id: call.id, content: "README.md" });
    if (calls.length === 0) history.push({ role: "user", content: "Go on" });
    silent = true;
    const failure = await turn().then(
      () => null,
      (error: unknown) => error,
    );
    expect(ClientTurnError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ status: 502, message: "upstream model did not answer within 200 ms" });
  });
});
