import OpenAI, { APIError } from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolDefinitions } from "./fake-workspace.ts";
import { type SimModelServer, startSimModel } from "./server.ts";

let server: SimModelServer;
let client: OpenAI;

beforeAll(async () => {
  server = await startSimModel({ maxInputTokens: 4000 });
  client = new OpenAI({ baseURL: server.baseURL, apiKey: "sim", maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
});

const tools = toolDefinitions(["read_file", "list_dir"]);
const call = (id: string, name = "read_file") => ({
  id,
  type: "function" as const,
  function: { name, arguments: JSON.stringify({ path: "a.ts" }) },
});

async function rejection(messages: ChatCompletionMessageParam[], model = "sim"): Promise<APIError> {
  const error = await client.chat.completions.create({ model, messages, tools }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(APIError);
  return error as APIError;
}

describe("strict validation", () => {
  it("rejects an assistant tool call not followed by its result", async () => {
    const error = await rejection([
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [call("c1"), call("c2")] },
      { role: "tool", tool_call_id: "c1", content: "ok" },
      { role: "user", content: "next" },
    ]);
    expect(error.status).toBe(400);
    expect(error.code).toBe("missing_tool_result");
    expect(error.type).toBe("invalid_request_error");
    expect(error.message).toContain("c2");
  });

  it("rejects a tool result for an unknown call id", async () => {
    const error = await rejection([
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [call("c1")] },
      { role: "tool", tool_call_id: "c1", content: "ok" },
      { role: "tool", tool_call_id: "nope", content: "ok" },
    ]);
    expect([error.status, error.code, error.param]).toEqual([
      400,
      "unknown_tool_call_id",
      "messages.[3].tool_call_id",
    ]);
  });

  it("rejects a tool message with no preceding tool call", async () => {
    const error = await rejection([
      { role: "user", content: "go" },
      { role: "tool", tool_call_id: "c1", content: "ok" },
    ]);
    expect([error.status, error.code]).toEqual([400, "unknown_tool_call_id"]);
  });

  it("rejects duplicate tool results, adjacent or later", async () => {
    const adjacent = await rejection([
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [call("c1")] },
      { role: "tool", tool_call_id: "c1", content: "ok" },
      { role: "tool", tool_call_id: "c1", content: "again" },
    ]);
    expect([adjacent.status, adjacent.code]).toEqual([400, "duplicate_tool_result"]);
    const later = await rejection([
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [call("c1")] },
      { role: "tool", tool_call_id: "c1", content: "ok" },
      { role: "user", content: "more" },
      { role: "tool", tool_call_id: "c1", content: "again" },
    ]);
    expect([later.status, later.code]).toEqual([400, "duplicate_tool_result"]);
  });

  it("rejects input over the window, counted with o200k", async () => {
    const big = "lorem ipsum dolor sit amet ".repeat(1000);
    const error = await rejection([{ role: "user", content: big }]);
    expect([error.status, error.code, error.type]).toEqual([
      400,
      "context_length_exceeded",
      "invalid_request_error",
    ]);
    expect(error.message).toMatch(
      /maximum context length is 4000 tokens\. However, your messages resulted in \d+ tokens/,
    );
    // The model-string window wins over the server default.
    const small = await rejection([{ role: "user", content: "word ".repeat(300) }], "sim:ctx=100");
    expect(small.code).toBe("context_length_exceeded");
    const fits = await client.chat.completions.create({
      model: "sim:ctx=100",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(fits.usage?.prompt_tokens).toBeLessThan(100);
  });

  it("rejects encrypted reasoning replayed outside its chain and accepts it inside", async () => {
    const model = "sim:reasoning=1";
    const history: ChatCompletionMessageParam[] = [
      { role: "system", content: "You are an agent." },
      { role: "user", content: "explore" },
    ];
    const first = await client.chat.completions.create({ model, messages: history, tools });
    const assistant = first.choices[0]!.message as unknown as { reasoning_details: unknown[] };
    expect(assistant.reasoning_details).toEqual([expect.objectContaining({ type: "reasoning.encrypted" })]);
    const calls = first.choices[0]!.message.tool_calls ?? [];
    const results = calls.map((toolCall) => ({
      role: "tool" as const,
      tool_call_id: toolCall.id,
      content: "x.ts",
    }));
    const replayed = { ...first.choices[0]!.message } as ChatCompletionMessageParam;

    // Same chain: accepted.
    const ok = await client.chat.completions.create({
      model,
      messages: [...history, replayed, ...results],
      tools,
    });
    expect(ok.choices[0]!.message).toBeDefined();

    // Different prefix (e.g. after a compaction rewrote the history): rejected.
    const moved: ChatCompletionMessageParam[] = [
      { role: "system", content: "You are an agent." },
      { role: "user", content: "summary of earlier work" },
      { role: "user", content: "explore" },
      replayed,
      ...results,
    ];
    const error = await rejection(moved, model);
    expect([error.status, error.code]).toEqual([400, "invalid_encrypted_content"]);

    // Forged token: rejected.
    const forged = { ...replayed, reasoning_details: [{ type: "reasoning.encrypted", data: "abc.def" }] };
    const forgedError = await rejection(
      [...history, forged as ChatCompletionMessageParam, ...results],
      model,
    );
    expect(forgedError.code).toBe("invalid_encrypted_content");
  });

  it("rejects malformed bodies and unknown models like a provider", async () => {
    const noMessages = await rejection([]);
    expect([noMessages.status, noMessages.code]).toEqual([400, "invalid_request"]);
    const unknownModel = await rejection([{ role: "user", content: "hi" }], "gpt-4o");
    expect([unknownModel.status, unknownModel.code]).toEqual([404, "model_not_found"]);
    const nullContent = await rejection([
      { role: "user", content: null } as unknown as ChatCompletionMessageParam,
    ]);
    expect([nullContent.status, nullContent.param]).toEqual([400, "messages.[0].content"]);
    const emptyCalls = await rejection([
      { role: "user", content: "hi" },
      { role: "assistant", content: "x", tool_calls: [] },
    ]);
    expect([emptyCalls.status, emptyCalls.code]).toEqual([400, "invalid_request"]);
    const badOption = await rejection([{ role: "user", content: "hi" }], "sim:steps=zero");
    expect([badOption.status, badOption.code]).toEqual([400, "invalid_request"]);
    const response = await fetch(`${server.baseURL}/chat/completions`, { method: "POST", body: "{not json" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: expect.objectContaining({ type: "invalid_request_error", code: "invalid_request" }),
    });
  });

  it("logs every rejection with its code", async () => {
    const codes = server.log.entries.map((entry) => entry.errorCode);
    for (const code of [
      "missing_tool_result",
      "unknown_tool_call_id",
      "duplicate_tool_result",
      "context_length_exceeded",
      "invalid_encrypted_content",
    ]) {
      expect(codes).toContain(code);
    }
  });
});
