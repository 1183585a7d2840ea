import Anthropic from "@anthropic-ai/sdk";
import { executeFakeTool, fakeWorkspace, type SimModelServer, toolDefinitions } from "@longrun/sim-model";
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EmbeddedTestInstance,
  type GatewayOverSim,
  startGatewayOverSim,
} from "../e2e/support/embedded-instance.ts";

const WINDOW = 16_384;

let gateway: GatewayOverSim;
let sim: SimModelServer;
let longrun: EmbeddedTestInstance;
let openai: OpenAI;

beforeAll(async () => {
  gateway = await startGatewayOverSim();
  ({ sim, longrun, openai } = gateway);
});
afterAll(() => gateway?.close());

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

describe("session identity from a client's stable signals", () => {
  const threadsTitled = async (text: string) =>
    (await longrun.client.threads.list()).filter((thread) => thread.title.includes(text));

  /** Plays a Chat Completions session of `rounds` tool rounds; the system prompt carries the time, as pi's and qwen's do. */
  async function session(first: string, directory: string, rounds: number, startMinute = 0) {
    const files = fakeWorkspace(24);
    let history: Message[] = [{ role: "user", content: first }];
    for (let round = 0; round < rounds; round++) {
      const minute = String(startMinute + round).padStart(2, "0");
      const system = `You are a coding assistant.\nCurrent date and time: 2026-12-06T03:${minute}:00Z\nCurrent working directory: ${directory}`;
      const message = await turn(system, history, {});
      history = [...history, ...answered(message, (name, args) => executeFakeTool(files, name, args))];
    }
    return history;
  }

  it("a client with no session id keeps one thread per session, whatever its system prompt changes", async () => {
    await session("List the modules of this project (identity A).", "/work/identity-a", 6);
    const threads = await threadsTitled("identity A");
    expect(threads).toHaveLength(1);
  });

  it("two sessions with the same first prompt in different folders are two conversations, not branches", async () => {
    await session("Report on the project (identity B).", "/work/identity-b1", 3);
    await session("Report on the project (identity B).", "/work/identity-b2", 3);
    const threads = await threadsTitled("identity B");
    expect(threads).toHaveLength(2);
    expect(threads.every((thread) => !thread.title.includes("(branch)"))).toBe(true);
  });

  it("Claude Code's session id (metadata.user_id, x-claude-code-session-id) parts two sessions with one first prompt", async () => {
    const anthropic = new Anthropic({
      baseURL: longrun.instance.url,
      apiKey: longrun.instance.token,
      maxRetries: 0,
    });
    const ask = (sessionId: string, how: "metadata" | "header") =>
      anthropic.messages.create(
        {
          model: `sim:steps=200:ctx=${WINDOW}`,
          max_tokens: 1_024,
          system: "You are Claude Code.\nWorking directory: /work/identity-c",
          tools: tools.map((tool) => ({
            name: tool.function.name,
            description: tool.function.description,
            input_schema: tool.function.parameters as Anthropic.Tool.InputSchema,
          })),
          messages: [{ role: "user", content: "Summarize the project (identity C)." }],
          ...(how === "metadata"
            ? { metadata: { user_id: JSON.stringify({ device_id: "d", session_id: sessionId }) } }
            : {}),
        },
        {
          headers: {
            "x-longrun-max-input-tokens": String(WINDOW),
            ...(how === "header" ? { "x-claude-code-session-id": sessionId } : {}),
          },
        },
      );
    await ask("claude-session-c1", "metadata");
    await ask("claude-session-c2", "metadata");
    await ask("claude-session-c3", "header");
    await ask("claude-session-c4", "header");
    // The same session asking again is the same conversation (answered from its log).
    await ask("claude-session-c1", "metadata");
    const threads = await threadsTitled("identity C");
    expect(threads).toHaveLength(4);
    expect(threads.every((thread) => !thread.title.includes("(branch)"))).toBe(true);
  });

  it("two sessions with no session id, the same first prompt and folder: the second is one branch, never answered from the first's log", async () => {
    const before = sim.log.entries.at(-1)?.seq ?? 0;
    await session("Explain the build (identity D).", "/work/identity-d", 4);
    const afterFirst = sim.log.entries.at(-1)?.seq ?? 0;
    // Later, so its clock (and the model's answers) differ, as a real model's would.
    await session("Explain the build (identity D).", "/work/identity-d", 4, 30);
    // Each request of each session went upstream: none was a replay of the other session's answers.
    expect(afterFirst - before).toBe(4);
    expect(upstreamAfter(afterFirst)).toHaveLength(4);
    // The first session's thread, and one branch holding the whole second session.
    const threads = await threadsTitled("identity D");
    expect(threads.map((thread) => thread.title.endsWith("(branch)")).sort()).toEqual([false, true]);
    const branch = await longrun.client.threads.get(
      threads.find((thread) => thread.title.endsWith("(branch)"))!.id,
    );
    const facts = await longrun.client.agents.messages(branch.agents[0]!.id, { limit: 100 });
    expect(facts.messages.filter((message) => message.role === "assistant")).toHaveLength(4);
  });
});
