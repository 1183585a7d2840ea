import {
  executeFakeTool,
  fakeWorkspace,
  type SimModelServer,
  startSimModel,
  toolDefinitions,
} from "@longrun/sim-model";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedTestInstance, startEmbeddedForTest } from "../e2e/support/embedded-instance.ts";

const WINDOW = 16_384;

let sim: SimModelServer;
let longrun: EmbeddedTestInstance;
let openai: OpenAI;

beforeAll(async () => {
  sim = await startSimModel({ logLimit: 2_000 });
  longrun = await startEmbeddedForTest({ OPENAI_BASE_URL: sim.baseURL, OPENAI_API_KEY: "sim" });
  openai = new OpenAI({
    baseURL: `${longrun.instance.url}/v1`,
    apiKey: longrun.instance.token,
    maxRetries: 0,
  });
});
afterAll(async () => {
  await longrun?.close();
  await sim?.close();
});

type Message = OpenAI.ChatCompletionMessageParam;
const tools = toolDefinitions(["read_file", "glob", "grep", "list_dir"]);

/** A `find` over a big tree: ~30,000 tokens of paths (38,000 for 3,000 lines by longrun's count). */
function hugeFindOutput(): string {
  const lines: string[] = [];
  for (let index = 0; index < 2_400; index++) {
    lines.push(`./packages/module-${index % 97}/src/generated/component-${index}.ts`);
  }
  return lines.join("\n");
}

/** One request of a Chat Completions client; returns the assistant message it appends to its history. */
async function turn(system: string, history: Message[], headers: Record<string, string>) {
  const completion = await openai.chat.completions.create(
    {
      model: `sim:steps=200:ctx=${WINDOW}`,
      messages: [{ role: "system", content: system }, ...history],
      tools,
    },
    { headers: { "x-longrun-max-input-tokens": String(WINDOW), ...headers } },
  );
  return completion.choices[0]!.message;
}

/** The client side of a tool round: the assistant message, then what the client's tools printed. */
function answered(message: OpenAI.ChatCompletionMessage, output: (name: string, args: string) => string) {
  const calls = (message.tool_calls ?? []).filter((call) => call.type === "function");
  const results: Message[] = calls.map((call) => ({
    role: "tool",
    tool_call_id: call.id,
    content: output(call.function.name, call.function.arguments),
  }));
  const assistant: Message = {
    role: "assistant",
    content: message.content,
    ...(calls.length ? { tool_calls: calls } : {}),
  };
  return [assistant, ...(results.length ? results : [{ role: "user" as const, content: "Go on." }])];
}

const upstreamAfter = (seq: number) => sim.log.entries.filter((entry) => entry.seq > seq);

describe("a client's tool results in the projection", () => {
  it("a 30k-token tool result at a 16k window: the session goes on, the upstream request fits and says what was cut", async () => {
    const files = fakeWorkspace(24);
    const system = "You are a coding agent.\nWorking directory: /work/huge-find";
    const headers = { "x-session-id": "ses_huge_find" };
    const before = sim.log.entries.at(-1)?.seq ?? 0;
    let history: Message[] = [{ role: "user", content: "Find every generated component." }];
    const huge = hugeFindOutput();
    // The first tool call the sim makes is answered with the huge output, the rest as the workspace would.
    let first = true;
    for (let round = 0; round < 8; round++) {
      const message = await turn(system, history, headers);
      history = [
        ...history,
        ...answered(message, (name, args) => {
          if (!first) return executeFakeTool(files, name, args);
          first = false;
          return huge;
        }),
      ];
    }
    expect(first).toBe(false);
    const upstream = upstreamAfter(before);
    expect(upstream.length).toBeGreaterThanOrEqual(8);
    expect(upstream.filter((entry) => entry.status !== 200)).toEqual([]);
    for (const entry of upstream) expect(entry.promptTokens ?? 0).toBeLessThanOrEqual(WINDOW);

    // The result as the model saw it: cut, with a marker saying how much of what.
    const withResult = upstream.find((entry) => JSON.stringify(entry.body).includes("component-0.ts"));
    expect(withResult).toBeDefined();
    const sentTool = (withResult!.body as { messages: Message[] }).messages.find(
      (message) => message.role === "tool" && String(message.content).includes("component-0.ts"),
    );
    const sentText = String(sentTool?.content);
    expect(sentText).toMatch(new RegExp(`\\[output cut: \\d+ of ${huge.length} characters omitted\\]`));
    expect(sentText.length).toBeLessThan(huge.length / 5);
    // Head and tail survive the cut.
    expect(sentText.startsWith("./packages/module-0/src/generated/component-0.ts")).toBe(true);
    expect(sentText.endsWith("component-2399.ts")).toBe(true);

    // The fact keeps what the client sent, whole.
    const thread = (await longrun.client.threads.list()).find((item) => item.title.includes("Find every"));
    const detail = await longrun.client.threads.get(thread!.id);
    const page = await longrun.client.agents.messages(detail.agents[0]!.id, { limit: 50 });
    const stored = page.messages.find((message) => message.role === "tool");
    expect(String(stored?.content)).toBe(huge);
  }, 120_000);
});

describe("a client whose fixed prompt fills most of the window (qwen-code)", () => {
  const QWEN_WINDOW = 20_000;
  /** ~10k tokens of system prompt and ~3.7k of tool definitions: ~85 % of the 16k the 20k window leaves for input. */
  const system = [
    "You are Qwen Code, an interactive CLI agent specializing in software engineering tasks.",
    ...Array.from(
      { length: 520 },
      (_, index) =>
        `Rule ${index}: keep the code style of the surrounding file and explain every change you make.`,
    ),
  ].join("\n");
  const qwenTools = toolDefinitions(["read_file", "glob", "grep", "list_dir"]).map((tool) => ({
    ...tool,
    function: {
      ...tool.function,
      description: `${tool.function.description} ${"Use it with care. ".repeat(180)}`,
    },
  }));

  it("compacts by summarizing the tail as a segment and goes on: no request over the window, no context_exhausted", async () => {
    const files = fakeWorkspace(24);
    const before = sim.log.entries.at(-1)?.seq ?? 0;
    let history: Message[] = [
      {
        role: "user",
        content: "This is the Qwen Code. I'm currently working in the directory: /work/qwen-fixed-prompt",
      },
      { role: "assistant", content: "Got it. Thanks for the context!" },
      { role: "user", content: "Read every module and report what it does." },
    ];
    for (let round = 0; round < 24; round++) {
      const completion = await openai.chat.completions.create(
        {
          model: `sim:steps=200:ctx=${QWEN_WINDOW}`,
          messages: [{ role: "system", content: system }, ...history],
          tools: qwenTools,
        },
        { headers: { "x-longrun-max-input-tokens": String(QWEN_WINDOW) } },
      );
      history = [
        ...history,
        ...answered(completion.choices[0]!.message, (name, args) => executeFakeTool(files, name, args)),
      ];
    }
    const upstream = upstreamAfter(before);
    expect(upstream.filter((entry) => entry.status !== 200)).toEqual([]);
    for (const entry of upstream) expect(entry.promptTokens ?? 0).toBeLessThanOrEqual(QWEN_WINDOW);
    const thread = (await longrun.client.threads.list()).find((item) =>
      item.title.includes("Read every module"),
    );
    const detail = await longrun.client.threads.get(thread!.id);
    const compactions = await longrun.client.agents.compactions(detail.agents[0]!.id);
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    // A partial compaction would have kept a verbatim tail the fixed prompt leaves no room for.
    expect(compactions.every((compaction) => compaction.strategy === "full")).toBe(true);
    expect(upstream.filter((entry) => entry.summary).length).toBe(compactions.length);
  }, 120_000);
});
