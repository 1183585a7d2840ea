import {
  type AnswerEvent,
  type ChatRequestBody,
  type ClientTurn,
  CODEX_COMPACTION_PROMPT,
  createResponsesStreamEncoder,
  parseChatRequest,
  parseResponsesRequest,
} from "@longrun/openai-compat";
import { executeFakeTool, fakeWorkspace, simModelName, toolDefinitions } from "@longrun/sim-model";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../harness.test-helper.ts";
import { runClientTurn } from "./client-turn.ts";
import { ClientTurnError } from "./client-turn-error.ts";
import type { ClientTurnOptions } from "./client-turn-options.ts";
import { countClientTurnTokens } from "./count-turn.ts";

let harness: Harness;
let options: ClientTurnOptions;

beforeEach(async () => {
  harness = await createHarness();
  options = { workspaceFor: async () => harness.workspace, compactionTimeoutMs: 60_000 };
});
afterEach(async () => {
  await harness.close();
});

async function send(turn: ClientTurn, headers: Record<string, string> = {}, tenantId = "t1") {
  const events: AnswerEvent[] = [];
  let began: { threadId: string; replayed: boolean } | undefined;
  const result = await runClientTurn(
    harness.deps,
    options,
    { tenantId, turn, header: (name) => headers[name], signal: new AbortController().signal, client: "test" },
    { begin: (info) => (began = info), event: (event) => events.push(event) },
  );
  return { result, events, began };
}

async function factsOf(threadId: string) {
  const agents = await harness.store.agents.listByThread(threadId);
  return harness.store.messages.list(agents[0]!.id, { afterSeq: -1 });
}

const agentRequests = () => harness.sim.log.entries.filter((entry) => !entry.summary);
const tools = toolDefinitions(["read_file", "glob", "grep", "list_dir"]);

describe("a gateway turn", () => {
  it("appends only what is new, answers a retried request from the log, and branches an edited history", async () => {
    const model = simModelName({ steps: 5 });
    const headers = { "x-longrun-conversation": "c1" };
    const history: ChatRequestBody["messages"] = [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: "Explore the project" },
    ];
    const first = await send(parseChatRequest({ model, messages: history, tools }), headers);
    expect(first.began).toEqual({ threadId: first.result.threadId, replayed: false });
    const call = first.result.answer.message.toolCalls![0]!;
    expect(await factsOf(first.result.threadId)).toHaveLength(3);

    const retried = await send(parseChatRequest({ model, messages: history, tools }), headers);
    expect(retried.result.replayed).toBe(true);
    expect(retried.result.answer.message.toolCalls).toEqual(first.result.answer.message.toolCalls);
    expect(agentRequests()).toHaveLength(1);

    history.push({ role: "assistant", content: first.result.answer.message.content, tool_calls: [call] });
    history.push({ role: "tool", tool_call_id: call.id, content: "README.md\nsrc/a.ts" });
    const second = await send(parseChatRequest({ model, messages: history, tools }), headers);
    expect(second.result.threadId).toBe(first.result.threadId);
    const facts = await factsOf(first.result.threadId);
    expect(facts.map((fact) => fact.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    expect(second.result.answer.usage?.promptTokens).toBe(agentRequests().at(-1)?.promptTokens);

    const edited: ChatRequestBody["messages"] = [
      history[0]!,
      { role: "user", content: "Explore something else" },
    ];
    const branch = await send(parseChatRequest({ model, messages: edited, tools }), headers);
    expect(branch.result.threadId).not.toBe(first.result.threadId);
    expect((await harness.store.threads.get(branch.result.threadId))?.modelProfile.gateway?.branchOf).toBe(
      first.result.threadId,
    );
    expect(await factsOf(first.result.threadId)).toHaveLength(5);
  });

  it("compacts through the queued job (no agent step follows it) and sends only projections that fit", async () => {
    const window = 10_000;
    // A compaction lands at a fifth of the window, so two of them take more turns than they did at 45 %.
    const model = simModelName({ steps: 50, ctx: window });
    const headers = { "x-longrun-conversation": "explore", "x-longrun-max-input-tokens": String(window) };
    const files = fakeWorkspace(24);
    const messages: ChatRequestBody["messages"] = [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: "Explore the repository and report." },
    ];
    let turns = 0;
    let threadId = "";
    for (; turns < 80; turns++) {
      const { result } = await send(parseChatRequest({ model, messages, tools, max_tokens: 512 }), headers);
      threadId = result.threadId;
      const answer = result.answer.message;
      messages.push({ role: "assistant", content: answer.content, tool_calls: answer.toolCalls });
      if (!answer.toolCalls?.length) break;
      for (const toolCall of answer.toolCalls) {
        const output = executeFakeTool(files, toolCall.function.name, toolCall.function.arguments);
        messages.push({ role: "tool", tool_call_id: toolCall.id, content: output });
      }
    }
    const compactions = harness.events.filter(
      (event) => event.threadId === threadId && event.type === "compaction.completed",
    );
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    // One upstream agent request per client request: nothing else called the model for this thread.
    expect(agentRequests()).toHaveLength(turns + 1);
    expect(harness.sim.log.entries.every((entry) => entry.status === 200)).toBe(true);
    expect(Math.max(...agentRequests().map((entry) => entry.promptTokens ?? 0))).toBeLessThanOrEqual(
      window - 512,
    );
    expect(await harness.store.runs.active(threadId)).toEqual([]);
    const root = (await harness.store.agents.listByThread(threadId))[0]!;
    expect(root.status).toBe("idle");
    // Every compaction run ended in a compaction event of its own: completed, or skipped (no progress).
    const ended = new Set(
      harness.events
        .filter(
          (event) =>
            event.threadId === threadId &&
            (event.type === "compaction.completed" || event.type === "compaction.skipped"),
        )
        .map((event) => event.runId),
    );
    const compactRuns = (await harness.store.runs.listByThread(threadId)).filter(
      (run) => run.kind === "compact",
    );
    expect(compactRuns.map((run) => ended.has(run.id))).toEqual(compactRuns.map(() => true));
    // The job runner never steps a compaction run, even while it is still active.
    const active = await harness.store.runs.create({
      threadId,
      agentId: root.id,
      kind: "compact",
      status: "running",
    });
    const step = await harness.runner.step(
      { threadId, agentId: root.id, runId: active.id },
      { attempt: 1, signal: new AbortController().signal },
    );
    expect(step).toEqual({ skipped: "compaction runs take no steps" });
    expect(agentRequests()).toHaveLength(turns + 1);
  });

  it("keeps encrypted reasoning in the log, echoed by a Responses client, and never replays it where it is invalid", async () => {
    const window = 8_000;
    const model = simModelName({ steps: 16, ctx: window, reasoning: true });
    const files = fakeWorkspace(24);
    const responsesTools = tools.map((tool) => ({
      type: "function",
      name: tool.function.name,
      parameters: {},
    }));
    const input: unknown[] = [
      { type: "message", role: "developer", content: "You are a coding agent." },
      { type: "message", role: "user", content: "Explore the repository and report." },
    ];
    let threadId = "";
    for (let turn = 0; turn < 40; turn++) {
      const parsed = parseResponsesRequest({
        model,
        input: input as never,
        tools: responsesTools,
        prompt_cache_key: "reasoning",
        max_output_tokens: 512,
      });
      const { result, events } = await send(parsed, { "x-longrun-max-input-tokens": String(window) });
      threadId = result.threadId;
      const encoder = createResponsesStreamEncoder(
        { id: `r${turn}`, model, createdAt: 0 },
        parsed.toolRoutes,
      );
      const done = [...events.flatMap((event) => encoder.event(event)), ...encoder.finish(result.answer)]
        .filter((event) => (event as { type: string }).type === "response.output_item.done")
        .map(
          (event) =>
            (event as { item: { type: string; call_id?: string; name?: string; arguments?: string } }).item,
        );
      expect(done[0]?.type).toBe("reasoning");
      input.push(...done);
      const calls = done.filter((item) => item.type === "function_call");
      if (calls.length === 0) break;
      for (const call of calls) {
        input.push({
          type: "function_call_output",
          call_id: call.call_id,
          output: executeFakeTool(files, call.name ?? "", call.arguments ?? "{}"),
        });
      }
    }
    // The history sent upstream changed under the client at least once, where a replayed reasoning item
    // stops being valid: at this window the deterministic stages' batched rewrites keep it under the
    // trigger (no LLM compaction); the engine's test covers reasoning across a compaction.
    expect(
      harness.events.some(
        (event) =>
          event.threadId === threadId &&
          (event.type === "compaction.completed" ||
            (event.type === "context.measured" && Boolean(event.data.cache?.rewrite))),
      ),
    ).toBe(true);
    // The strict sim refuses replayed reasoning outside its chain: nothing was refused.
    expect(harness.sim.log.entries.every((entry) => entry.status === 200)).toBe(true);
    expect(agentRequests().some((entry) => entry.carriesProviderState)).toBe(true);
    const facts = await factsOf(threadId);
    expect(facts.filter((fact) => fact.providerState?.reasoningDetails?.length).length).toBeGreaterThan(10);
  });

  it("refuses a history whose verbatim part cannot fit with context_exhausted, and sends nothing", async () => {
    const window = 2_000;
    const turn = parseChatRequest({
      model: simModelName({ steps: 5, ctx: window }),
      messages: [{ role: "user", content: "word ".repeat(4_000) }],
      tools,
    });
    const failure = await send(turn, { "x-longrun-max-input-tokens": String(window) }).catch(
      (error) => error,
    );
    expect(ClientTurnError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ status: 400, code: "context_exhausted" });
    expect(agentRequests()).toHaveLength(0);
    const thread = (await harness.store.threads.list("t1"))[0]!;
    expect(thread.status).toBe("context_exhausted");
    expect(
      (await harness.store.runs.listByThread(thread.id)).find((run) => run.kind === "message")?.status,
    ).toBe("failed");
  });

  it("answers Codex's own compaction request from longrun, and the rebuilt history continues the same thread", async () => {
    const model = simModelName({ steps: 5 });
    const base = {
      model,
      prompt_cache_key: "codex-session",
      tools: [{ type: "function", name: "read_file", parameters: { type: "object" } }],
    };
    const developer = { type: "message", role: "developer", content: "You are Codex." };
    const task = { type: "message", role: "user", content: "Explore the project" };
    const first = await send(parseResponsesRequest({ ...base, input: [developer, task] }));
    const metadata = { "x-codex-turn-metadata": '{"request_kind":"compaction"}' };
    const checkpoint = await send(
      parseResponsesRequest({
        ...base,
        tools: [],
        input: [
          developer,
          task,
          { type: "message", role: "user", content: `${CODEX_COMPACTION_PROMPT}. Summarize.` },
        ],
      }),
      metadata,
    );
    const text = checkpoint.result.answer.message.content as string;
    expect(text).toMatch(/^\[longrun checkpoint \d+ thread [0-9a-f-]{36}\]/);
    expect(checkpoint.result.threadId).toBe(first.result.threadId);
    expect(agentRequests()).toHaveLength(1);

    const rebuilt = [
      developer,
      task,
      {
        type: "message",
        role: "user",
        content: `Another language model started to solve this problem:\n${text}`,
      },
      { type: "message", role: "user", content: "Now read the README" },
    ];
    const next = await send(parseResponsesRequest({ ...base, input: rebuilt }));
    expect(next.result.threadId).toBe(first.result.threadId);
    const facts = await factsOf(first.result.threadId);
    expect(facts.map((fact) => fact.content)).toContain("Now read the README");
    expect(facts.filter((fact) => fact.role === "user")).toHaveLength(2);
  });

  it("continues one thread after qwen-code's compaction, which resends the pending call/result pair after its summary and restored files", async () => {
    // qwen-code 0.24 (no session id) rebuilds its history as: the summary (longrun's answer), "Got it",
    // the files it read lately, then the call and result it was in the middle of — a pair longrun
    // already has before the checkpoint. Measured: its second request after that branched the thread.
    const model = simModelName({ steps: 8 });
    const system = { role: "system" as const, content: "You are Qwen Code." };
    const task = {
      role: "user" as const,
      content: "I'm currently working in the directory: /work/q\nSurvey the project.",
    };
    const files = fakeWorkspace(6);
    const messages: ChatRequestBody["messages"] = [system, task];
    const step = async () => {
      const { result } = await send(parseChatRequest({ model, messages, tools }));
      const answer = result.answer.message;
      messages.push({ role: "assistant", content: answer.content, tool_calls: answer.toolCalls });
      for (const call of answer.toolCalls ?? []) {
        const output = executeFakeTool(files, call.function.name, call.function.arguments);
        messages.push({ role: "tool", tool_call_id: call.id, content: output });
      }
      return result.threadId;
    };
    const threadId = await step();
    await step();
    const pending = messages.slice(-2);
    const checkpoint = await send(
      parseChatRequest({
        model,
        messages: [
          { role: "system", content: "You are the component that summarizes a conversation." },
          ...messages.slice(1),
          {
            role: "user",
            content: "First, reason in your <analysis> block. Then, produce the <state_snapshot> XML.",
          },
        ],
      }),
    );
    const summary = checkpoint.result.answer.message.content as string;
    expect(summary).toMatch(/^\[longrun checkpoint \d+ thread /);
    messages.splice(
      1,
      messages.length,
      { role: "user", content: `${summary}\n\nResume the prior task using the summary above.` },
      { role: "assistant", content: "Got it. Thanks for the additional context!" },
      { role: "user", content: "Recently accessed file (full current content embedded):\n\n## src/a.ts" },
      ...pending,
    );
    for (let turn = 0; turn < 3; turn++) expect(await step()).toBe(threadId);
    expect(
      (await harness.store.threads.list("t1")).filter((thread) => thread.modelProfile.gateway),
    ).toHaveLength(1);
    // The log stayed well formed: each call answered exactly once (the last answer's call still open).
    const facts = await factsOf(threadId);
    const calls = facts.slice(0, -1).flatMap((fact) => (fact.toolCalls ?? []).map((call) => call.id));
    const results = facts.filter((fact) => fact.role === "tool").map((fact) => fact.toolCallId);
    expect(new Set(calls).size).toBe(calls.length);
    expect([...results].sort()).toEqual([...calls].sort());
  });

  it("tells qwen-code its snapshot request's own size, unscaled, so qwen keeps longrun's summary", async () => {
    // qwen-code keeps a summary when before − (prompt tokens − 1,000) + summary tokens + restored files
    // ≤ before (its own count), else it discards it, keeps its whole history and asks again. Told the
    // projection scaled to its window (~2k here), it found every answer "inflated" (measured: 5 asks in
    // 29 requests, then "Context is too large to send safely after automatic compression").
    const window = 16_000;
    const model = simModelName({ steps: 30, ctx: window });
    const headers = { "x-longrun-max-input-tokens": String(window), "x-longrun-client-window": "8000" };
    const files = fakeWorkspace(12);
    const messages: ChatRequestBody["messages"] = [
      { role: "system", content: "You are Qwen Code." },
      { role: "user", content: "I'm currently working in the directory: /work/q\nSurvey the project." },
    ];
    for (let turn = 0; turn < 8; turn++) {
      const { result } = await send(parseChatRequest({ model, messages, tools }), headers);
      const answer = result.answer.message;
      messages.push({ role: "assistant", content: answer.content, tool_calls: answer.toolCalls });
      for (const call of answer.toolCalls ?? []) {
        const output = executeFakeTool(files, call.function.name, call.function.arguments);
        messages.push({ role: "tool", tool_call_id: call.id, content: output });
      }
    }
    const snapshot = parseChatRequest({
      model,
      messages: [
        { role: "system", content: "You are the component that summarizes a conversation." },
        ...messages.slice(1),
        {
          role: "user",
          content: "First, reason in your <analysis> block. Then, produce the <state_snapshot> XML.",
        },
      ],
    });
    const { result } = await send(snapshot, headers);
    expect(result.answer.message.content).toMatch(/^\[longrun checkpoint \d+ thread /);
    const sent = await countClientTurnTokens(snapshot, harness.deps.tokenizer);
    expect(result.answer.usage?.promptTokens).toBe(sent);
    // qwen's own rule, with its count of the history (system, tools, messages) as "before".
    const before = await countClientTurnTokens(
      parseChatRequest({ model, messages, tools }),
      harness.deps.tokenizer,
    );
    const kept = before - (sent - 1_000) + (result.answer.usage?.completionTokens ?? 0);
    expect(kept).toBeLessThan(before);
  });

  it("keeps tenants apart even when they send the same conversation key", async () => {
    const turn = parseChatRequest({
      model: simModelName({ steps: 3 }),
      messages: [{ role: "user", content: "hello" }],
      tools,
    });
    const headers = { "x-longrun-conversation": "shared" };
    const mine = await send(turn, headers, "tenant-a");
    const theirs = await send(turn, headers, "tenant-b");
    expect(mine.result.threadId).not.toBe(theirs.result.threadId);
    expect((await harness.store.threads.get(mine.result.threadId))?.tenantId).toBe("tenant-a");
    expect((await harness.store.threads.get(theirs.result.threadId))?.tenantId).toBe("tenant-b");
  });
});
