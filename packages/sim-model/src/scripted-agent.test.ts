import OpenAI from "openai";
import type { ChatCompletion, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeFakeTool, fakeWorkspace, toolDefinitions } from "./fake-workspace.ts";
import { CALL_ID_PATTERN } from "./markers.ts";
import { type SimScript, simModelName } from "./model-options.ts";
import { type SimModelServer, startSimModel } from "./server.ts";
import { countRequest } from "./tokens.ts";
import type { WireRequest } from "./wire.ts";

let server: SimModelServer;
let client: OpenAI;

beforeAll(async () => {
  server = await startSimModel({ logBodies: false, logLimit: 5000 });
  client = new OpenAI({ baseURL: server.baseURL, apiKey: "sim", maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
});

interface Session {
  toolTurns: number;
  toolNames: Map<string, number>;
  parallelTurns: number;
  final: string;
  files: Map<string, string>;
  messages: ChatCompletionMessageParam[];
}

type Compactor = (messages: ChatCompletionMessageParam[]) => Promise<ChatCompletionMessageParam[]>;

/** Drive a scripted agent to its final answer, executing its tool calls against a fake workspace. */
async function runSession(model: string, compact?: Compactor, toolNames?: string[]): Promise<Session> {
  const files = fakeWorkspace();
  const tools = toolDefinitions(toolNames);
  let messages: ChatCompletionMessageParam[] = [
    { role: "system", content: "You are a coding agent working in a repository." },
    { role: "user", content: "Explore the repository and write down what it does." },
  ];
  const session: Session = {
    toolTurns: 0,
    toolNames: new Map(),
    parallelTurns: 0,
    final: "",
    files,
    messages,
  };
  for (let turn = 0; turn < 1000; turn += 1) {
    const completion: ChatCompletion = await client.chat.completions.create({ model, messages, tools });
    const message = completion.choices[0]!.message;
    const calls = message.tool_calls ?? [];
    messages.push(message as ChatCompletionMessageParam);
    if (calls.length === 0) {
      expect(completion.choices[0]!.finish_reason).toBe("stop");
      session.final = message.content ?? "";
      break;
    }
    session.toolTurns += 1;
    if (calls.length > 1) session.parallelTurns += 1;
    for (const call of calls) {
      if (call.type !== "function") throw new Error("unexpected call type");
      expect(tools.map((tool) => tool.function.name)).toContain(call.function.name);
      expect(() => JSON.parse(call.function.arguments)).not.toThrow();
      session.toolNames.set(call.function.name, (session.toolNames.get(call.function.name) ?? 0) + 1);
      const content = executeFakeTool(files, call.function.name, call.function.arguments);
      messages.push({ role: "tool", tool_call_id: call.id, content });
    }
    if (compact) messages = await compact(messages);
  }
  session.messages = messages;
  return session;
}

describe("scripted agents", () => {
  it("explorer runs exactly 200 steps, every request accepted, then reports", async () => {
    server.log.clear();
    // A window big enough for 200 uncompacted steps (the compaction case is the next test).
    const started = performance.now();
    const session = await runSession(simModelName({ steps: 200, ctx: 2_000_000 }));
    console.log(`200 steps in ${Math.round(performance.now() - started)} ms`);
    expect(session.toolTurns).toBe(200);
    expect(session.final).toContain("Completed 200 steps");
    expect(session.final).toContain("[sim:done step=200]");
    expect(server.log.entries).toHaveLength(201);
    expect(server.log.entries.every((entry) => entry.status === 200)).toBe(true);
    for (const name of [
      "todo_write",
      "list_dir",
      "glob",
      "grep",
      "read_file",
      "write_file",
      "edit_file",
      "update_plan",
    ]) {
      expect(session.toolNames.get(name) ?? 0).toBeGreaterThan(0);
    }
    expect(session.parallelTurns).toBeGreaterThan(10);
    // The notes file was written and then edited successfully (the edit's oldText existed).
    expect(session.files.get("SIM_NOTES.md")).toMatch(/progress: step 198/);
    expect(session.toolNames.get("read_file")).toBeGreaterThan(100);
  }, 120_000);

  it("counts steps through compactions that replace history with a sim summary", async () => {
    let compactions = 0;
    const window = 20_000;
    const compact: Compactor = async (messages) => {
      const size = countRequest({ model: "sim", messages, tools: toolDefinitions() } as WireRequest);
      if (size < window * 0.6) return messages;
      compactions += 1;
      // Summarize all but the last tool loop with the sim itself, then keep the tail verbatim.
      const cut = messages.findLastIndex((message) => message.role === "assistant");
      const head = messages.slice(1, cut);
      const summary = await client.chat.completions.create({
        model: "sim",
        messages: [{ role: "system", content: "Summarize the conversation so far." }, ...head],
      });
      return [
        messages[0]!,
        { role: "user", content: summary.choices[0]!.message.content ?? "" },
        ...messages.slice(cut),
      ];
    };
    server.log.clear();
    const session = await runSession(simModelName({ steps: 60, ctx: window }), compact);
    expect(server.log.entries.every((entry) => entry.status === 200)).toBe(true);
    expect(server.log.entries.filter((entry) => entry.summary)).toHaveLength(compactions);
    expect(compactions).toBeGreaterThan(2);
    expect(session.toolTurns).toBe(60);
    expect(session.final).toContain("[sim:done step=60]");
  }, 60_000);

  it("counts by assistant turns when no marker survives", async () => {
    // A foreign history: ids without the sim's step marker.
    const messages: ChatCompletionMessageParam[] = [
      { role: "user", content: "go" },
      ...[1, 2, 3].flatMap((index): ChatCompletionMessageParam[] => [
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: `x${index}`, type: "function", function: { name: "glob", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: `x${index}`, content: "a.ts" },
      ]),
    ];
    const done = await client.chat.completions.create({
      model: "sim:steps=3",
      messages,
      tools: toolDefinitions(),
    });
    expect(done.choices[0]!.message.tool_calls ?? []).toHaveLength(0);
    const more = await client.chat.completions.create({
      model: "sim:steps=4",
      messages,
      tools: toolDefinitions(),
    });
    expect(more.choices[0]!.message.tool_calls?.[0]?.id).toMatch(/^call_s4_0_/);
  });

  it("a new user message after a final answer starts a new task", async () => {
    const first = await runSession(simModelName({ steps: 5 }));
    const messages = [...first.messages, { role: "user" as const, content: "Now look again." }];
    const next = await client.chat.completions.create({
      model: "sim:steps=5",
      messages,
      tools: toolDefinitions(),
    });
    const id = next.choices[0]!.message.tool_calls?.[0]?.id ?? "";
    expect([...id.matchAll(CALL_ID_PATTERN)][0]?.[1]).toBe("6");
  });

  it.each<[SimScript, string]>([
    ["team", "spawn_agents"],
    ["approval", "run_command"],
    ["writer", "write_file"],
  ])("%s script uses %s", async (script, tool) => {
    const session = await runSession(simModelName({ steps: 12, script }));
    expect(session.toolTurns).toBe(12);
    expect(session.toolNames.get(tool) ?? 0).toBeGreaterThan(0);
    if (script === "writer") {
      expect(session.files.get("sim-writer/part-1.md")).toMatch(/^# Part 1 \(reviewed\)/);
      expect(session.files.get("sim-writer/part-1.md")!.length).toBeGreaterThan(5000);
    }
  });

  it("honours parallel_tool_calls: false and tool_choice: none", async () => {
    // Step 6 of explorer reads three files at once; replay a history that reaches it.
    const session = await runSession(simModelName({ steps: 5 }));
    const messages = session.messages.slice(0, -1);
    const tools = toolDefinitions();
    const model = simModelName({ steps: 10 });
    const parallel = await client.chat.completions.create({ model, messages, tools });
    expect(parallel.choices[0]!.message.tool_calls).toHaveLength(3);
    const single = await client.chat.completions.create({
      model,
      messages,
      tools,
      parallel_tool_calls: false,
    });
    expect(single.choices[0]!.message.tool_calls).toHaveLength(1);
    const none = await client.chat.completions.create({ model, messages, tools, tool_choice: "none" });
    expect(none.choices[0]!.message.tool_calls).toBeUndefined();
  });

  it("uses only the tools offered", async () => {
    const session = await runSession(simModelName({ steps: 15 }), undefined, ["read_file", "glob"]);
    expect(session.toolTurns).toBe(15);
    expect([...session.toolNames.keys()].sort()).toEqual(["glob", "read_file"]);
  });
});
