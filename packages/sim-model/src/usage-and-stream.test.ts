import OpenAI from "openai";
import type { ChatCompletionChunk, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolDefinitions } from "./fake-workspace.ts";
import { simModelName } from "./model-options.ts";
import { type SimModelServer, startSimModel } from "./server.ts";
import { countRequest } from "./tokens.ts";

let server: SimModelServer;
let client: OpenAI;
const tools = toolDefinitions();

beforeAll(async () => {
  server = await startSimModel();
  client = new OpenAI({ baseURL: server.baseURL, apiKey: "sim", maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
});

describe("usage", () => {
  it("counts prompt tokens with the documented rule and reports cached prefix tokens", async () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: "You are a careful agent. ".repeat(50) },
      { role: "user", content: "Survey the workspace and report." },
    ];
    const first = await client.chat.completions.create({ model: "sim", messages, tools });
    const expected = countRequest({ model: "sim", messages, tools } as Parameters<typeof countRequest>[0]);
    expect(first.usage?.prompt_tokens).toBe(expected);
    expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(0);

    const assistant = first.choices[0]!.message;
    const next: ChatCompletionMessageParam[] = [
      ...messages,
      assistant as ChatCompletionMessageParam,
      ...(assistant.tool_calls ?? []).map((call) => ({
        role: "tool" as const,
        tool_call_id: call.id,
        content: "done",
      })),
    ];
    const second = await client.chat.completions.create({ model: "sim", messages: next, tools });
    const cached = second.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    // The whole previous request (minus reply priming) is a known prefix now.
    expect(cached).toBe(expected - 3);
    expect(cached).toBeLessThan(second.usage!.prompt_tokens);

    // A different first message shares no prefix.
    const other = await client.chat.completions.create({
      model: "sim",
      messages: [{ role: "system", content: "Another system prompt" }, ...messages.slice(1)],
      tools,
    });
    expect(other.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
  });

  it("reports reasoning tokens inside completion tokens when reasoning is on", async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "think first" }];
    const plain = await client.chat.completions.create({ model: "sim", messages, tools });
    const reasoning = await client.chat.completions.create({
      model: simModelName({ reasoning: true }),
      messages,
      tools,
    });
    expect(plain.usage?.completion_tokens_details?.reasoning_tokens).toBe(0);
    const reasoningTokens = reasoning.usage?.completion_tokens_details?.reasoning_tokens ?? 0;
    expect(reasoningTokens).toBeGreaterThan(10);
    expect(reasoning.usage!.completion_tokens).toBe(plain.usage!.completion_tokens + reasoningTokens);
    expect(reasoning.usage!.total_tokens).toBe(
      reasoning.usage!.prompt_tokens + reasoning.usage!.completion_tokens,
    );
  });
});

describe("streaming", () => {
  it("streams content and tool-call deltas and ends with a usage chunk", async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "stream please" }];
    const whole = await client.chat.completions.create({ model: "sim:reasoning=1", messages, tools });
    const stream = await client.chat.completions.create({
      model: "sim:reasoning=1",
      messages,
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    let content = "";
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    let reasoningDetails: unknown;
    for (const chunk of chunks) {
      const delta = chunk.choices[0]?.delta;
      content += delta?.content ?? "";
      reasoningDetails ??= (delta as { reasoning_details?: unknown } | undefined)?.reasoning_details;
      for (const part of delta?.tool_calls ?? []) {
        calls[part.index] ??= { id: "", name: "", arguments: "" };
        const target = calls[part.index]!;
        target.id += part.id ?? "";
        target.name += part.function?.name ?? "";
        target.arguments += part.function?.arguments ?? "";
      }
    }
    const message = whole.choices[0]!.message;
    expect(content).toBe(message.content);
    expect(calls).toEqual(
      (message.tool_calls ?? []).map((call) => ({
        id: call.id,
        name: call.type === "function" ? call.function.name : "",
        arguments: call.type === "function" ? call.function.arguments : "",
      })),
    );
    expect(reasoningDetails).toEqual([expect.objectContaining({ type: "reasoning.encrypted" })]);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("tool_calls");
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage?.prompt_tokens).toBe(whole.usage?.prompt_tokens);
    expect(last.usage?.completion_tokens_details?.reasoning_tokens).toBeGreaterThan(0);
    expect(last.usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThan(0);
  });

  it("omits the usage chunk unless include_usage is set", async () => {
    const stream = await client.chat.completions.create({
      model: "sim",
      messages: [{ role: "user", content: "no usage" }],
      stream: true,
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((chunk) => !chunk.usage)).toBe(true);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("stop");
  });

  it("lists the sim model", async () => {
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toContain("sim");
  });
});
