import Anthropic from "@anthropic-ai/sdk";
import type { UpstreamApi } from "@longrun/protocol";
import type { SimLogEntry } from "@longrun/sim-model";
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allEvents, type GatewayOverSim, startGatewayOverSim } from "../e2e/support/embedded-instance.ts";

// The gateway matrix: each inbound API (a client on the official SDK, streamed through its stream
// helper) over each upstream wire format (the strict sim over real HTTP), a tool loop long enough for
// longrun to compact under a small window, reasoning on at both ends.

const UPSTREAMS: UpstreamApi[] = ["chat-completions", "responses", "anthropic-messages"];
const INBOUND = ["chat", "responses", "messages"] as const;
type Inbound = (typeof INBOUND)[number];

const WINDOW = 3_000;
const MODEL = "sim:script=coder:steps=14:reasoning=1";
/** LONGRUN_THINKING_BUDGET of the servers: what an Anthropic upstream gets from an OpenAI-family client. */
const CONFIGURED_BUDGET = 1_024;
/** The Anthropic client's own budget: what an Anthropic upstream gets from it. */
const CLIENT_BUDGET = 2_048;
const EFFORT = "low";

const CWD = "/work/project";
const SYSTEM = `You are a coding agent.\nPrimary working directory: ${CWD}`;
const schema = (...names: string[]) => ({
  type: "object" as const,
  properties: Object.fromEntries(names.map((name) => [name, { type: "string" }])),
});
const TOOLS = [
  { name: "Bash", description: "Run a command", parameters: schema("command", "description") },
  { name: "Read", description: "Read a file", parameters: schema("file_path") },
  { name: "Write", description: "Write a file", parameters: schema("file_path", "content") },
  { name: "Edit", description: "Edit a file", parameters: schema("file_path", "old_string", "new_string") },
];

/** Plays the client's side of a tool call over a small in-memory project. */
function execute(name: string, input: Record<string, unknown>): string {
  if (name === "Bash" && String(input.command).startsWith("find"))
    return ["./README.md", "./src/a.ts", "./src/b.ts", "./src/c.ts", "./src/d.ts"].join("\n");
  if (name === "Read")
    return `// ${String(input.file_path)}\n${"export const value = 42; // padding\n".repeat(30)}`;
  return name === "Bash" ? "ok" : "File written.";
}

/** What one client's conversation came to, as the client saw it. */
interface Conversation {
  /** Every tool call the client was asked to run, by id. */
  callIds: string[];
  /** How the last answer ended, in the client API's own words. */
  lastStop: string | null | undefined;
  /** Answers that told the client reasoning in its API's form. */
  answersWithReasoning: number;
}

const MAX_TURNS = 60;

/** A Chat Completions client: `chat.completions.stream` and its final completion, `reasoning_effort` set. */
async function chatLoop(
  openai: OpenAI,
  headers: Record<string, string>,
  afterAnswer: (turn: number) => void = () => undefined,
): Promise<Conversation> {
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: "Survey the project and report" },
  ];
  const seen: Conversation = { callIds: [], lastStop: undefined, answersWithReasoning: 0 };
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const stream = openai.chat.completions.stream(
      {
        model: MODEL,
        messages,
        tools: TOOLS.map((tool) => ({ type: "function" as const, function: tool })),
        reasoning_effort: EFFORT,
        stream_options: { include_usage: true },
      },
      { headers },
    );
    const completion = await stream.finalChatCompletion();
    const choice = completion.choices[0]!;
    const message = choice.message as typeof choice.message & { reasoning_details?: unknown[] };
    if ((message.reasoning_details?.length ?? 0) > 0) seen.answersWithReasoning++;
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
    messages.push(message as OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam);
    afterAnswer(turn);
    seen.lastStop = choice.finish_reason;
    if (choice.finish_reason !== "tool_calls") return seen;
    for (const call of message.tool_calls ?? []) {
      if (call.type !== "function") continue;
      seen.callIds.push(call.id);
      const input = JSON.parse(call.function.arguments) as Record<string, unknown>;
      messages.push({ role: "tool", tool_call_id: call.id, content: execute(call.function.name, input) });
    }
  }
  throw new Error("the conversation did not end");
}

/** A Responses client (as Codex): `responses.stream`, store false, encrypted reasoning asked for and echoed. */
async function responsesLoop(openai: OpenAI, headers: Record<string, string>): Promise<Conversation> {
  const input: OpenAI.Responses.ResponseInputItem[] = [
    { type: "message", role: "user", content: "Survey the project and report" },
  ];
  const seen: Conversation = { callIds: [], lastStop: undefined, answersWithReasoning: 0 };
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const stream = openai.responses.stream(
      {
        model: MODEL,
        instructions: SYSTEM,
        input,
        tools: TOOLS.map((tool) => ({ type: "function" as const, strict: false, ...tool })),
        reasoning: { effort: EFFORT },
        include: ["reasoning.encrypted_content"],
        store: false,
      },
      { headers },
    );
    const response = await stream.finalResponse();
    expect(response.status).toBe("completed");
    expect(response.usage?.input_tokens).toBeGreaterThan(0);
    const reasoning = response.output.filter((item) => item.type === "reasoning");
    if (reasoning.some((item) => item.encrypted_content)) seen.answersWithReasoning++;
    // Codex echoes every output item (reasoning with its encrypted content included) in its next input.
    input.push(...(response.output as OpenAI.Responses.ResponseInputItem[]));
    const calls = response.output.filter((item) => item.type === "function_call");
    seen.lastStop = calls.length > 0 ? "function_call" : response.status;
    if (calls.length === 0) return seen;
    for (const call of calls) {
      seen.callIds.push(call.call_id);
      const output = execute(call.name, JSON.parse(call.arguments) as Record<string, unknown>);
      input.push({ type: "function_call_output", call_id: call.call_id, output });
    }
  }
  throw new Error("the conversation did not end");
}

/** An Anthropic Messages client (as Claude Code): `messages.stream`, thinking enabled with its own budget. */
async function messagesLoop(anthropic: Anthropic, headers: Record<string, string>): Promise<Conversation> {
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: "Survey the project and report" }];
  const seen: Conversation = { callIds: [], lastStop: undefined, answersWithReasoning: 0 };
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const stream = anthropic.messages.stream(
      {
        model: MODEL,
        max_tokens: 4_096,
        system: SYSTEM,
        tools: TOOLS.map((tool) => ({
          name: tool.name,
          description: tool.description,
          input_schema: tool.parameters,
        })),
        thinking: { type: "enabled", budget_tokens: CLIENT_BUDGET },
        messages,
      },
      { headers },
    );
    const answer = await stream.finalMessage();
    if (answer.content.some((block) => block.type === "thinking" || block.type === "redacted_thinking"))
      seen.answersWithReasoning++;
    messages.push({ role: "assistant", content: answer.content });
    seen.lastStop = answer.stop_reason;
    if (answer.stop_reason !== "tool_use") return seen;
    const calls = answer.content.filter((block) => block.type === "tool_use");
    messages.push({
      role: "user",
      content: calls.map((call) => {
        seen.callIds.push(call.id);
        return {
          type: "tool_result" as const,
          tool_use_id: call.id,
          content: execute(call.name, call.input as Record<string, unknown>),
        };
      }),
    });
  }
  throw new Error("the conversation did not end");
}

/** The tool results an upstream request carries, by call id, in its format's own shape. */
function resultIdsOf(api: UpstreamApi, body: unknown): string[] {
  if (api === "chat-completions")
    return (body as { messages: Array<{ role: string; tool_call_id?: string }> }).messages.flatMap(
      (message) => (message.role === "tool" && message.tool_call_id ? [message.tool_call_id] : []),
    );
  if (api === "responses")
    return (body as { input: Array<{ type?: string; call_id?: string }> }).input.flatMap((item) =>
      item.type === "function_call_output" && item.call_id ? [item.call_id] : [],
    );
  return (body as { messages: Array<{ content: unknown }> }).messages.flatMap((message) =>
    Array.isArray(message.content)
      ? (message.content as Array<{ type: string; tool_use_id?: string }>).flatMap((block) =>
          block.type === "tool_result" && block.tool_use_id ? [block.tool_use_id] : [],
        )
      : [],
  );
}

/** True when an agent request (not a summary) carries the summary of a longrun compaction. */
const afterCompaction = (entry: SimLogEntry) =>
  !entry.summary && JSON.stringify(entry.body).includes("[Context summary");

/** Thinking blocks of an Anthropic request anywhere but on the in-flight tool loop's answer. */
function thinkingOutsideInFlight(body: unknown): number {
  const messages = (body as { messages: Array<{ role: string; content: unknown }> }).messages;
  const blocks = (message: { content: unknown } | undefined) =>
    Array.isArray(message?.content) ? (message.content as Array<{ type: string }>) : [];
  const last = messages.at(-1);
  const inFlight =
    last?.role === "user" && blocks(last).some((block) => block.type === "tool_result")
      ? messages.length - 2
      : -1;
  return messages
    .filter((_, index) => index !== inFlight)
    .flatMap((message) => blocks(message))
    .filter((block) => block.type === "thinking" || block.type === "redacted_thinking").length;
}

/** The reasoning the upstream request asked for, in its format's words (none: undefined). */
function reasoningAsked(api: UpstreamApi, body: Record<string, unknown>): unknown {
  if (api === "chat-completions") return body.reasoning_effort;
  if (api === "responses") return (body.reasoning as { effort?: string } | undefined)?.effort;
  return (body.thinking as { budget_tokens?: number } | undefined)?.budget_tokens;
}

/** What each cell's upstream requests must ask for: carried within a family, dropped across one. */
function expectedReasoning(inbound: Inbound, upstream: UpstreamApi): unknown {
  if (upstream === "anthropic-messages") return inbound === "messages" ? CLIENT_BUDGET : CONFIGURED_BUDGET;
  return inbound === "messages" ? undefined : EFFORT;
}

describe.each(UPSTREAMS)("the gateway over a %s upstream", (upstream) => {
  let gateway: GatewayOverSim;
  let anthropic: Anthropic;
  beforeAll(async () => {
    gateway = await startGatewayOverSim(
      { logLimit: 5_000, logBodies: true },
      { LONGRUN_UPSTREAM_API: upstream, LONGRUN_THINKING_BUDGET: String(CONFIGURED_BUDGET) },
    );
    anthropic = new Anthropic({
      baseURL: gateway.longrun.instance.url,
      apiKey: gateway.longrun.instance.token,
      maxRetries: 0,
    });
  });
  afterAll(() => gateway?.close());

  it.each(INBOUND)(
    "%s client: a tool loop through a compaction, nothing refused, no provider state after it",
    async (inbound) => {
      const { sim, longrun, openai } = gateway;
      const from = sim.log.entries.at(-1)?.seq ?? -1;
      const name = `matrix-${inbound}-over-${upstream}`;
      const headers = { "x-longrun-max-input-tokens": String(WINDOW), "x-longrun-conversation": name };
      const seen =
        inbound === "chat"
          ? await chatLoop(openai, headers)
          : inbound === "responses"
            ? await responsesLoop(openai, headers)
            : await messagesLoop(anthropic, headers);

      // The loop ran to the script's end, the client ran its tools, and was told reasoning its own way.
      expect(seen.lastStop).toBe({ chat: "stop", responses: "completed", messages: "end_turn" }[inbound]);
      expect(seen.callIds.length).toBeGreaterThanOrEqual(10);
      expect(seen.answersWithReasoning).toBeGreaterThan(0);

      const entries = sim.log.entries.filter((entry) => entry.seq > from);
      // Every request (summaries too) went out in the configured format, and the strict sim took all.
      expect(entries.filter((entry) => entry.status !== 200)).toEqual([]);
      expect(entries.every((entry) => entry.api === upstream)).toBe(true);

      // longrun compacted the conversation (as a queued job, its summary in the upstream's format).
      const thread = (await longrun.client.threads.list()).find(
        (item) => item.modelProfile.gateway?.key === `conversation:${name}`,
      );
      expect(thread?.modelProfile.upstreamApi).toBe(upstream);
      const agentId = (await longrun.client.threads.get(thread!.id)).agents[0]!.id;
      expect((await longrun.client.agents.compactions(agentId)).length).toBeGreaterThan(0);
      expect(entries.some((entry) => entry.summary)).toBe(true);
      console.info(
        `[gateway ${inbound} over ${upstream}] client calls ${seen.callIds.length}, upstream requests ${entries.length} (summaries ${entries.filter((entry) => entry.summary).length}), with provider state ${entries.filter((entry) => entry.carriesProviderState).length}, answers told with reasoning ${seen.answersWithReasoning}`,
      );

      // Provider-private state travelled inside its chain before the compaction, never after it — but
      // the in-flight tool loop's answer keeps Anthropic's signed thinking, which no prefix binds — never
      // in a summary request.
      const agentRequests = entries.filter((entry) => !entry.summary);
      const first = agentRequests.findIndex(afterCompaction);
      expect(first).toBeGreaterThan(0);
      expect(agentRequests.slice(0, first).some((entry) => entry.carriesProviderState)).toBe(true);
      const stateAfter = agentRequests.slice(first).filter((entry) => entry.carriesProviderState);
      if (upstream === "anthropic-messages") {
        expect(stateAfter.map((entry) => thinkingOutsideInFlight(entry.body))).toEqual(
          stateAfter.map(() => 0),
        );
      } else {
        expect(stateAfter).toEqual([]);
      }
      expect(entries.filter((entry) => entry.summary && entry.carriesProviderState)).toEqual([]);

      // Every tool call the client ran came back upstream as its result, in the upstream's own shape.
      const returned = new Set(agentRequests.flatMap((entry) => resultIdsOf(upstream, entry.body)));
      expect(seen.callIds.filter((id) => !returned.has(id))).toEqual([]);

      // Reasoning asked for by each side's rules: carried within a provider family, dropped across one.
      const asked = new Set(
        agentRequests.map((entry) => reasoningAsked(upstream, entry.body as Record<string, unknown>)),
      );
      expect(asked.has(expectedReasoning(inbound, upstream))).toBe(true);
      expect([...asked].filter((value) => value !== undefined)).toEqual(
        expectedReasoning(inbound, upstream) === undefined ? [] : [expectedReasoning(inbound, upstream)],
      );
    },
    120_000,
  );
});

describe("the gateway's controls over an anthropic-messages upstream", () => {
  let gateway: GatewayOverSim;
  beforeAll(async () => {
    gateway = await startGatewayOverSim(
      { logLimit: 100, logBodies: true },
      { LONGRUN_UPSTREAM_API: "anthropic-messages", LONGRUN_THINKING_BUDGET: String(CONFIGURED_BUDGET) },
    );
  });
  afterAll(() => gateway?.close());

  it("maps tool choice; no thinking with a forced tool, no temperature with thinking", async () => {
    const { sim, openai } = gateway;
    const ask = async (conversation: string, toolChoice: "auto" | "required") => {
      await openai.chat.completions.create(
        {
          model: MODEL,
          messages: [{ role: "user", content: "Survey the project and report" }],
          tools: TOOLS.map((tool) => ({ type: "function" as const, function: tool })),
          tool_choice: toolChoice,
          parallel_tool_calls: false,
          temperature: 0.3,
          stop: ["END"],
        },
        { headers: { "x-longrun-conversation": conversation } },
      );
      return sim.log.entries.at(-1)!;
    };
    const forced = await ask("controls-forced", "required");
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({
      tool_choice: { type: "any", disable_parallel_tool_use: true },
      temperature: 0.3,
      stop_sequences: ["END"],
    });
    expect((forced.body as Record<string, unknown>).thinking).toBeUndefined();
    const free = await ask("controls-free", "auto");
    expect(free.status).toBe(200);
    expect(free.body).toMatchObject({
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
      thinking: { type: "enabled", budget_tokens: CONFIGURED_BUDGET },
      stop_sequences: ["END"],
    });
    expect((free.body as Record<string, unknown>).temperature).toBeUndefined();
  });
});

describe.each(UPSTREAMS)("the gateway's recovery over a %s upstream", (upstream) => {
  let gateway: GatewayOverSim;
  beforeAll(async () => {
    gateway = await startGatewayOverSim(
      { logLimit: 5_000, logBodies: true },
      { LONGRUN_UPSTREAM_API: upstream, LONGRUN_THINKING_BUDGET: String(CONFIGURED_BUDGET) },
    );
  });
  afterAll(() => gateway?.close());

  it("a refused replayed reasoning is dropped once and not sent again; an overflow compacts once", async () => {
    const { sim, longrun, openai } = gateway;
    const from = sim.log.entries.at(-1)?.seq ?? -1;
    const name = `recovery-over-${upstream}`;
    const headers = { "x-longrun-max-input-tokens": "64000", "x-longrun-conversation": name };
    const secret = sim.config.secret;
    const seen = await chatLoop(openai, headers, (turn) => {
      // The provider's key changes: every reasoning item it issued before no longer verifies.
      if (turn === 3) sim.config.secret = `rotated-${upstream}`;
      // Later the provider says the request is over its window, once.
      if (turn === 8) sim.config.faults = { overflow: true, times: 1, key: `gateway-overflow-${upstream}` };
    });
    sim.config.secret = secret;
    expect(seen.lastStop).toBe("stop");
    const refused = sim.log.entries.filter((entry) => entry.seq > from && entry.status !== 200);
    console.info(
      `[gateway recovery over ${upstream}] refused ${JSON.stringify(refused.map((entry) => entry.errorCode))}`,
    );
    expect(refused.map((entry) => entry.errorCode)).toEqual([expect.any(String), "context_length_exceeded"]);
    const thread = (await longrun.client.threads.list()).find(
      (item) => item.modelProfile.gateway?.key === `conversation:${name}`,
    );
    const events = await allEvents(longrun.client, thread!.id);
    expect(events.filter((event) => event.type === "reasoning.dropped")).toHaveLength(1);
    expect(
      events.filter((event) => event.type === "compaction.started").map((event) => event.data.trigger),
    ).toEqual(["overflow"]);
  }, 120_000);
});
