import Anthropic, { APIError } from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolDefinitions } from "../fake-workspace.ts";
import { type SimModelServer, startSimModel } from "../server.ts";

let server: SimModelServer;
let client: Anthropic;

beforeAll(async () => {
  server = await startSimModel({ maxInputTokens: 4000 });
  client = new Anthropic({ baseURL: server.url, apiKey: "sim", maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
});

const tools = toolDefinitions(["read_file", "list_dir"]).map((tool) => ({
  name: tool.function.name,
  description: tool.function.description ?? "",
  input_schema: tool.function.parameters as Anthropic.Messages.Tool.InputSchema,
}));
const thinking = { type: "enabled" as const, budget_tokens: 1024 };

async function rejection(request: Anthropic.Messages.MessageCreateParamsNonStreaming): Promise<APIError> {
  const error = await client.messages.create(request).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(APIError);
  return error as APIError;
}

/** A first answer with thinking and a tool call, streamed and parsed by the SDK's MessageStream. */
async function firstAnswer() {
  const messages: Anthropic.Messages.MessageParam[] = [{ role: "user", content: "Explore the project." }];
  const stream = client.messages.stream({
    model: "sim",
    max_tokens: 4096,
    system: "You explore.",
    messages,
    tools,
    thinking,
  });
  const texts: string[] = [];
  stream.on("text", (text) => texts.push(text));
  const answer = await stream.finalMessage();
  return { messages, answer, texts };
}

/** The conversation continued with `content` as the assistant's turn and an "ok" result for each tool call of `answer`. */
function continuedWith(
  messages: Anthropic.Messages.MessageParam[],
  answer: Anthropic.Messages.Message,
  content: Anthropic.Messages.ContentBlockParam[],
): Anthropic.Messages.MessageParam[] {
  const uses = answer.content.filter((block) => block.type === "tool_use");
  return [
    ...messages,
    { role: "assistant", content },
    {
      role: "user",
      content: uses.map((use) => ({ type: "tool_result" as const, tool_use_id: use.id, content: "ok" })),
    },
  ];
}

describe("the sim model on Anthropic Messages", () => {
  it("streams thinking, text and tool_use that the SDK's stream parser assembles", async () => {
    const { answer } = await firstAnswer();
    expect(answer.content[0]?.type).toBe("thinking");
    const use = answer.content.find((block) => block.type === "tool_use");
    expect(use?.type === "tool_use" && typeof use.input).toBe("object");
    expect(answer.stop_reason).toBe("tool_use");
    expect(answer.usage.input_tokens).toBeGreaterThan(0);
    expect(answer.usage.cache_read_input_tokens).toBe(0);
  });

  it("accepts the in-flight tool loop with its thinking byte-exact, and reports cache reads", async () => {
    const { messages, answer } = await firstAnswer();
    const next = await client.messages.create({
      model: "sim",
      max_tokens: 4096,
      system: "You explore.",
      tools,
      thinking,
      messages: continuedWith(messages, answer, answer.content),
    });
    expect(next.content[0]?.type).toBe("thinking");
    expect(next.usage.cache_read_input_tokens).toBeGreaterThan(0);
  });

  it("refuses the in-flight tool loop without its thinking (400, Anthropic's words)", async () => {
    const { messages, answer } = await firstAnswer();
    const withoutThinking = answer.content.filter((block) => block.type !== "thinking");
    const error = await rejection({
      model: "sim",
      max_tokens: 4096,
      tools,
      thinking,
      messages: continuedWith(messages, answer, withoutThinking),
    });
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/Expected `thinking` or `redacted_thinking`, but found `(text|tool_use)`/);
    expect((error.error as { error: { type: string } }).error.type).toBe("invalid_request_error");
  });

  it("refuses a thinking block whose text was changed (signature)", async () => {
    const { messages, answer } = await firstAnswer();
    const edited = answer.content.map((block) =>
      block.type === "thinking" ? { ...block, thinking: `${block.thinking} ` } : block,
    );
    const error = await rejection({
      model: "sim",
      max_tokens: 4096,
      tools,
      thinking,
      messages: continuedWith(messages, answer, edited),
    });
    expect(error.message).toMatch(/Invalid `signature` in `thinking` block/);
  });

  it("refuses a tool_use whose tool_result is not first in the next user message", async () => {
    const { messages, answer } = await firstAnswer();
    const uses = answer.content.filter((block) => block.type === "tool_use");
    const error = await rejection({
      model: "sim",
      max_tokens: 4096,
      tools,
      messages: [
        ...messages,
        { role: "assistant", content: answer.content },
        {
          role: "user",
          content: [
            { type: "text", text: "first a word" },
            ...uses.map((use) => ({ type: "tool_result" as const, tool_use_id: use.id, content: "ok" })),
          ],
        },
      ],
    });
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/`tool_use` ids were found without `tool_result` blocks immediately after/);
  });

  it("refuses more than four cache breakpoints", async () => {
    const marked = { type: "ephemeral" as const };
    const error = await rejection({
      model: "sim",
      max_tokens: 1024,
      system: [1, 2, 3, 4, 5].map((n) => ({
        type: "text" as const,
        text: `part ${n}`,
        cache_control: marked,
      })),
      messages: [{ role: "user", content: "hi" }],
    });
    expect(error.message).toMatch(/A maximum of 4 blocks with cache_control may be provided. Found 5/);
  });

  it("answers an over-long prompt with Anthropic's overflow error", async () => {
    const error = await rejection({
      model: "sim",
      max_tokens: 1024,
      messages: [{ role: "user", content: "word ".repeat(6000) }],
    });
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/prompt is too long: \d+ tokens > 4000 maximum/);
    const logged = server.log.entries.at(-1);
    expect(logged?.api).toBe("anthropic-messages");
    expect(logged?.errorCode).toBe("context_length_exceeded");
  });
});
