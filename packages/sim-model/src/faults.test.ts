import OpenAI, { APIError } from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { toolDefinitions } from "./fake-workspace.ts";
import { type SimModelServer, startSimModel } from "./server.ts";

let server: SimModelServer;
let client: OpenAI;
const tools = toolDefinitions();
const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "hello" }];

beforeAll(async () => {
  server = await startSimModel();
  client = new OpenAI({ baseURL: server.baseURL, apiKey: "sim", maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.log.clear();
  server.reset();
  server.config.faults = undefined;
});

async function failure(promise: Promise<unknown>): Promise<APIError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(APIError);
  return error as APIError;
}

const withFault = (fault: string) => ({ headers: { "x-sim-fault": fault } });

describe("injectable faults", () => {
  it("answers 500 with a server_error body", async () => {
    const error = await failure(
      client.chat.completions.create({ model: "sim", messages, tools }, withFault("status=500")),
    );
    expect([error.status, error.type, error.code]).toEqual([500, "server_error", "server_error"]);
  });

  it("answers 429 a given number of times, and the client's retries get through", async () => {
    const fault = "status=429;times=2;retry-after-ms=1";
    const first = await failure(
      client.chat.completions.create({ model: "sim", messages, tools }, withFault(fault)),
    );
    expect([first.status, first.code]).toEqual([429, "rate_limit_exceeded"]);
    expect(first.headers?.get("retry-after-ms")).toBe("1");
    server.reset();
    const retrying = new OpenAI({ baseURL: server.baseURL, apiKey: "sim", maxRetries: 2 });
    const answer = await retrying.chat.completions.create(
      { model: "sim", messages, tools },
      withFault(fault),
    );
    expect(answer.choices[0]!.message.tool_calls?.length).toBeGreaterThan(0);
    expect(server.log.entries.map((entry) => entry.status)).toEqual([429, 429, 429, 200]);
  });

  it("delays the answer", async () => {
    const started = performance.now();
    await client.chat.completions.create(
      { model: "sim", messages, tools },
      { headers: { "x-sim-delay-ms": "150" } },
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it("forces a context overflow on a small request", async () => {
    const error = await failure(
      client.chat.completions.create({ model: "sim", messages, tools }, withFault("overflow")),
    );
    expect([error.status, error.code]).toEqual([400, "context_length_exceeded"]);
  });

  it("fails summaries N times, then succeeds; agent requests are unaffected", async () => {
    const summaryRequest = {
      model: "sim",
      messages: [{ role: "system" as const, content: "Summarize the conversation." }, ...messages],
    };
    const fault = withFault("summary-fail=3;key=summary-test");
    const agent = await client.chat.completions.create({ model: "sim", messages, tools }, fault);
    expect(agent.choices[0]!.message.tool_calls?.length).toBeGreaterThan(0);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const error = await failure(client.chat.completions.create(summaryRequest, fault));
      expect([error.status, error.code]).toEqual([500, "summary_failed"]);
    }
    const summary = await client.chat.completions.create(summaryRequest, fault);
    expect(summary.choices[0]!.message.content).toMatch(/^<sim-summary/);
  });

  it("applies faults from server configuration", async () => {
    server.config.faults = { status: 503, times: 1 };
    const error = await failure(client.chat.completions.create({ model: "sim", messages, tools }));
    expect(error.status).toBe(503);
    const answer = await client.chat.completions.create({ model: "sim", messages, tools });
    expect(answer.choices).toHaveLength(1);
  });

  it("rejects a malformed fault header", async () => {
    const error = await failure(
      client.chat.completions.create({ model: "sim", messages, tools }, withFault("explode")),
    );
    expect([error.status, error.code]).toEqual([400, "invalid_request"]);
  });

  it("serves the request log over HTTP and clears it", async () => {
    await client.chat.completions.create({ model: "sim", messages, tools });
    const log = (await (await fetch(`${server.url}/sim/log`)).json()) as {
      entries: Array<{ status: number }>;
    };
    expect(log.entries).toEqual([expect.objectContaining({ status: 200, model: "sim", summary: false })]);
    expect((await fetch(`${server.url}/sim/log`, { method: "DELETE" })).status).toBe(204);
    expect(server.log.entries).toHaveLength(0);
  });
});

describe("faults set while the sim runs (PUT /sim/faults)", () => {
  const admin = (method: string, body?: object) =>
    fetch(`${server.url}/sim/faults`, {
      method,
      headers: { "content-type": "application/json" },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  it("applies a fault to the next requests, counts it afresh, and clears it", async () => {
    const set = await admin("PUT", { fault: "status=503;times=1", delayMs: 5 });
    expect(set.status).toBe(200);
    expect(await (await admin("GET")).json()).toMatchObject({
      faults: { status: 503, times: 1, delayMs: 5 },
    });
    expect((await failure(client.chat.completions.create({ model: "sim", messages }))).status).toBe(503);
    await expect(client.chat.completions.create({ model: "sim", messages })).resolves.toBeDefined();
    expect((await admin("DELETE")).status).toBe(204);
    expect(await (await admin("GET")).json()).toEqual({ faults: null });
  });

  it("refuses a fault it cannot read, and keeps the one it had", async () => {
    expect((await admin("PUT", { fault: "status=oops" })).status).toBe(400);
    expect((await admin("PUT")).status).toBe(400);
    expect(await (await admin("GET")).json()).toEqual({ faults: null });
  });
});
