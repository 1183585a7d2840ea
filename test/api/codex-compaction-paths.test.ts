import { executeFakeTool, fakeWorkspace, type SimModelServer, toolDefinitions } from "@longrun/sim-model";
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import {
  type EmbeddedTestInstance,
  type GatewayOverSim,
  startGatewayOverSim,
} from "../e2e/support/embedded-instance.ts";

const WINDOW = 16_384;
const CHECKPOINT = /^\[longrun checkpoint (\d+) thread ([0-9a-f-]{36})\]/;

let gateway: GatewayOverSim;
let sim: SimModelServer;
let longrun: EmbeddedTestInstance;
let openai: OpenAI;

beforeAll(async () => {
  gateway = await startGatewayOverSim();
  ({ sim, longrun, openai } = gateway);
});
afterAll(() => gateway?.close());

type Input = OpenAI.Responses.ResponseInputItem;
const headers = { "x-longrun-max-input-tokens": String(WINDOW) };
const tools = toolDefinitions(["read_file", "glob", "grep", "list_dir"]).map((tool) => ({
  type: "function" as const,
  name: tool.function.name,
  parameters: tool.function.parameters,
  strict: false,
}));
const developer: Input = { type: "message", role: "developer", content: "You are Codex, a coding agent." };

/** Codex's opening items: its environment, then the task (both carry the session's stable signals). */
const opening = (folder: string, task: string): Input[] => [
  {
    type: "message",
    role: "user",
    content: `<environment_context>\n  <cwd>${folder}</cwd>\n</environment_context>`,
  },
  { type: "message", role: "user", content: task },
];

/** `rounds` Codex requests: each answer's calls run against the fake workspace and go back as outputs. */
async function play(sessionKey: string, start: Input[], rounds: number): Promise<Input[]> {
  const files = fakeWorkspace(24);
  let history = start;
  for (let round = 0; round < rounds; round++) {
    const response = await openai.responses.create(
      {
        model: `sim:steps=200:ctx=${WINDOW}`,
        input: [developer, ...history],
        tools,
        prompt_cache_key: sessionKey,
        store: false,
      },
      { headers },
    );
    const calls = response.output.flatMap((item) => (item.type === "function_call" ? [item] : []));
    history = [
      ...history,
      ...(response.output_text
        ? [{ type: "message" as const, role: "assistant" as const, content: response.output_text }]
        : []),
      ...calls.map((call) => ({
        type: "function_call" as const,
        call_id: call.call_id,
        name: call.name,
        arguments: call.arguments,
      })),
      ...calls.map((call) => ({
        type: "function_call_output" as const,
        call_id: call.call_id,
        output: executeFakeTool(files, call.name, call.arguments),
      })),
    ];
  }
  return history;
}

const threadsTitled = async (text: string) =>
  (await longrun.client.threads.list()).filter((thread) => thread.title.includes(text));

describe("Codex's compaction paths", () => {
  it("POST /v1/responses/compact is answered from longrun's compaction, and the replacement history continues the thread", async () => {
    const history = await play(
      "codex-compact-1",
      opening("/work/codex-compact", "Survey the project (compact path)."),
      5,
    );
    const before = sim.log.entries.at(-1)?.seq ?? 0;
    const response = await fetch(`${longrun.instance.url}/v1/responses/compact`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${longrun.instance.token}`,
        "content-type": "application/json",
        ...headers,
      },
      body: JSON.stringify({
        model: `sim:steps=200:ctx=${WINDOW}`,
        input: [developer, ...history],
        instructions: "You are Codex, a coding agent.",
        tools,
        prompt_cache_key: "codex-compact-1",
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      object: string;
      output: Array<{ type: string; role: string; content: Array<{ type: string; text: string }> }>;
      usage?: { input_tokens: number };
    };
    expect(body.object).toBe("response.compaction");
    expect(body.output).toHaveLength(1);
    expect(body.output[0]).toMatchObject({ type: "message", role: "user" });
    const text = body.output[0]!.content[0]!.text;
    const [thread] = await threadsTitled("compact path");
    expect(text).toMatch(CHECKPOINT);
    expect(CHECKPOINT.exec(text)?.[2]).toBe(thread!.id);
    // Nothing went upstream as a conversation: at most longrun's own summary job.
    expect(sim.log.entries.filter((entry) => entry.seq > before && !entry.summary)).toEqual([]);

    // Codex replaces its history with the output and goes on: the same thread, nothing resent as new.
    const factsBefore = (
      await longrun.client.agents.messages((await longrun.client.threads.get(thread!.id)).agents[0]!.id, {
        limit: 200,
      })
    ).messages.length;
    const replaced = body.output as unknown as Input[];
    await play("codex-compact-1", [...replaced, { type: "message", role: "user", content: "Continue." }], 2);
    const threads = await threadsTitled("compact path");
    expect(threads).toHaveLength(1);
    const factsAfter = (
      await longrun.client.agents.messages((await longrun.client.threads.get(thread!.id)).agents[0]!.id, {
        limit: 200,
      })
    ).messages;
    // The continuation's user message and two answered rounds were appended, nothing else.
    expect(factsAfter.length).toBeGreaterThan(factsBefore);
    expect(factsAfter.filter((fact) => fact.role === "user" && fact.content === "Continue.")).toHaveLength(1);
  });

  it("a request carrying a compaction_trigger item is answered from longrun's compaction, not sent upstream", async () => {
    const history = await play(
      "codex-trigger-1",
      opening("/work/codex-trigger", "Survey the project (trigger path)."),
      4,
    );
    const before = sim.log.entries.at(-1)?.seq ?? 0;
    const response = await openai.responses.create(
      {
        model: `sim:steps=200:ctx=${WINDOW}`,
        input: [developer, ...history, { type: "compaction_trigger" } as unknown as Input],
        tools,
        prompt_cache_key: "codex-trigger-1",
        store: false,
      },
      { headers },
    );
    expect(response.output_text).toMatch(CHECKPOINT);
    expect(response.output.some((item) => item.type === "function_call")).toBe(false);
    expect(sim.log.entries.filter((entry) => entry.seq > before && !entry.summary)).toEqual([]);
    expect(await threadsTitled("trigger path")).toHaveLength(1);
  });

  it("a Responses WebSocket upgrade is refused at once, naming the Codex setting that keeps it on HTTP", async () => {
    const refusal = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const socket = new WebSocket(`${longrun.instance.url.replace("http", "ws")}/v1/responses`, {
        headers: { authorization: `Bearer ${longrun.instance.token}` },
      });
      socket.once("unexpected-response", (_request, response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => {
          body += chunk.toString("utf8");
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      });
      socket.once("open", () => reject(new Error("the upgrade was accepted")));
      socket.once("error", () => undefined);
    });
    expect(refusal.status).toBe(404);
    expect(JSON.parse(refusal.body).error.message).toContain("supports_websockets = false");
  });
});
