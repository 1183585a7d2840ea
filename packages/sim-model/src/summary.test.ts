import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolDefinitions } from "./fake-workspace.ts";
import { type SimModelServer, startSimModel } from "./server.ts";
import { buildSummary, SUMMARY_MAX_TOKENS } from "./summary.ts";
import { isSummaryRequest } from "./summary-request.ts";
import { countText } from "./tokens.ts";
import type { WireMessage } from "./wire.ts";

let server: SimModelServer;
let client: OpenAI;

beforeAll(async () => {
  server = await startSimModel();
  client = new OpenAI({ baseURL: server.baseURL, apiKey: "sim", maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
});

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  type: "function" as const,
  function: { name, arguments: JSON.stringify(args) },
});

const transcript: ChatCompletionMessageParam[] = [
  { role: "user", content: "Refactor the parser in src/parser.ts and keep the tests green." },
  {
    role: "assistant",
    content: "I will read the parser first.",
    tool_calls: [call("call_s1_0_aa", "read_file", { path: "src/parser.ts" })],
  },
  { role: "tool", tool_call_id: "call_s1_0_aa", content: "export function parse() {}" },
  {
    role: "assistant",
    content: "Decided to split the tokenizer out of the parser.",
    tool_calls: [
      call("call_s2_0_aa", "write_file", { path: "src/tokenizer.ts", content: "export {}" }),
      call("call_s2_1_aa", "todo_write", {
        todos: [
          { content: "Split tokenizer", status: "completed" },
          { content: "Update tests", status: "in_progress" },
        ],
      }),
    ],
  },
  { role: "tool", tool_call_id: "call_s2_0_aa", content: "Wrote src/tokenizer.ts" },
  { role: "tool", tool_call_id: "call_s2_1_aa", content: "ok" },
  { role: "user", content: "Also rename parse to parseDocument." },
];

describe("summarization", () => {
  it("recognizes summarization requests by the documented rule", () => {
    const system = (content: string): WireMessage => ({ role: "system", content });
    expect(isSummaryRequest({ messages: [system("Summarize the conversation.")] })).toBe(true);
    expect(isSummaryRequest({ messages: [system("Write a summary of the work so far.")] })).toBe(true);
    expect(isSummaryRequest({ messages: [system("You summarise transcripts.")], tools: [] })).toBe(true);
    expect(isSummaryRequest({ messages: [system("You are an agent.")] })).toBe(false);
    expect(isSummaryRequest({ messages: [{ role: "user", content: "Summarize." }] })).toBe(false);
    const tools = toolDefinitions(["read_file"]);
    expect(isSummaryRequest({ messages: [system("Summarize.")], tools })).toBe(false);
  });

  it("answers with a structured extractive summary", async () => {
    server.log.clear();
    const completion = await client.chat.completions.create({
      model: "sim",
      messages: [
        { role: "system", content: "Summarize the conversation for a continuation." },
        ...transcript,
      ],
    });
    const text = completion.choices[0]!.message.content ?? "";
    expect(completion.choices[0]!.message.tool_calls).toBeUndefined();
    expect(text).toMatch(/^<sim-summary v=1 step=2 done=0>/);
    expect(text).toContain("## Task\nRefactor the parser in src/parser.ts");
    expect(text).toContain("## Latest user message\nAlso rename parse to parseDocument.");
    expect(text).toContain("- Decided to split the tokenizer out of the parser.");
    expect(text).toContain("- src/parser.ts (read)");
    expect(text).toContain("- src/tokenizer.ts (written)");
    expect(text).toContain("read_file x1, todo_write x1, write_file x1");
    expect(text).toContain("## Open items\n- [in_progress] Update tests");
    expect(text).toContain("## Next step\nContinue with: [in_progress] Update tests");
    expect(server.log.entries.at(-1)).toMatchObject({ summary: true, status: 200, script: null });
    // Deterministic: the same request gives the same summary.
    const again = await client.chat.completions.create({
      model: "sim",
      messages: [
        { role: "system", content: "Summarize the conversation for a continuation." },
        ...transcript,
      ],
    });
    expect(again.choices[0]!.message.content).toBe(text);
  });

  it("folds a previous summary in", () => {
    const first = buildSummary([{ role: "system", content: "Summarize." }, ...(transcript as WireMessage[])]);
    const later: WireMessage[] = [
      { role: "system", content: "Summarize." },
      { role: "user", content: first },
      {
        role: "assistant",
        content: "Renaming now.",
        tool_calls: [
          call("call_s3_0_bb", "edit_file", { path: "src/parser.ts", oldText: "parse", newText: "x" }),
        ],
      },
      { role: "tool", tool_call_id: "call_s3_0_bb", content: "Edited" },
    ];
    const folded = buildSummary(later);
    expect(folded).toMatch(/^<sim-summary v=1 step=3 done=0>/);
    expect(folded).toContain("## Task\nRefactor the parser in src/parser.ts");
    expect(folded).toContain("edit_file x1, read_file x1, todo_write x1, write_file x1");
    expect(folded).toContain("- src/parser.ts (edited)");
    expect(folded).toContain("- src/tokenizer.ts (written)");
    expect(folded).toContain("- Decided to split the tokenizer out of the parser.");
    expect(folded).toContain("- Renaming now.");
  });

  it("keeps the working folder a message named, past what the task keeps, and carries it into the next summary", () => {
    // qwen-code names its folder in a first message that opens with ~6k characters of reminders.
    const first = buildSummary([
      { role: "system", content: "Summarize." },
      {
        role: "user",
        content: `<system-reminder>${"skill ".repeat(1_000)}</system-reminder>\nI'm currently working in the directory: /work/q\nSurvey it.`,
      },
      {
        role: "assistant",
        content: "Looking.",
        tool_calls: [call("call_s1_0_aa", "read_file", { path: "a.ts" })],
      },
      { role: "tool", tool_call_id: "call_s1_0_aa", content: "export const a = 1;" },
    ]);
    expect(first).toContain("- Working directory: /work/q");
    const folded = buildSummary([
      { role: "system", content: "Summarize." },
      { role: "user", content: first },
      {
        role: "assistant",
        content: "Reading.",
        tool_calls: [call("call_s2_0_bb", "read_file", { path: "b.ts" })],
      },
      { role: "tool", tool_call_id: "call_s2_0_bb", content: "export const b = 2;" },
    ]);
    expect(folded).toContain("- Working directory: /work/q");
  });

  it("stays within its token bound whatever the input", () => {
    const huge: WireMessage[] = [
      { role: "system", content: "Summarize." },
      { role: "user", content: "x ".repeat(50_000) },
    ];
    for (let index = 0; index < 400; index += 1) {
      huge.push({
        role: "assistant",
        content: `Working on file number ${index} with a long explanation ${"why ".repeat(40)}`,
        tool_calls: [
          call(`call_s${index + 1}_0_cc`, "read_file", { path: `src/deep/folder/file-${index}.ts` }),
        ],
      });
      huge.push({ role: "tool", tool_call_id: `call_s${index + 1}_0_cc`, content: "y".repeat(500) });
    }
    const summary = buildSummary(huge);
    expect(countText(summary)).toBeLessThanOrEqual(SUMMARY_MAX_TOKENS);
    expect(summary).toMatch(/^<sim-summary v=1 step=400 done=0>/);
    expect(summary).toContain("src/deep/folder/file-399.ts (read)");
  });

  it("recognizes the continuation shape: tool_choice none and the instruction as the last user message", () => {
    const tools = toolDefinitions(["read_file"]);
    const instruction: WireMessage = { role: "user", content: "Summarize the conversation above." };
    const agent: WireMessage[] = [
      { role: "system", content: "You are an agent." },
      ...(transcript as WireMessage[]),
    ];
    expect(isSummaryRequest({ messages: [...agent, instruction], tools, tool_choice: "none" })).toBe(true);
    // Without tool_choice none it is the agent's turn; without the instruction last it is a plain answer.
    expect(isSummaryRequest({ messages: [...agent, instruction], tools })).toBe(false);
    expect(isSummaryRequest({ messages: agent, tools, tool_choice: "none" })).toBe(false);
  });

  it("summarizes a continuation before the messages it keeps verbatim, within max_tokens", async () => {
    server.log.clear();
    const instruction =
      "[Context compaction] Do not continue the task: summarize the conversation above. The newest 3 messages above will be kept verbatim after this summary: summarize everything before them.";
    const request = {
      model: "sim",
      messages: [
        { role: "system" as const, content: "You are an agent." },
        ...transcript,
        { role: "user" as const, content: instruction },
      ],
      tools: toolDefinitions(["read_file", "write_file", "todo_write"]),
      tool_choice: "none" as const,
    };
    const roomy = await client.chat.completions.create({ ...request, max_tokens: 1_000 });
    const text = roomy.choices[0]!.message.content ?? "";
    expect(roomy.choices[0]!.message.tool_calls).toBeUndefined();
    expect(server.log.entries.at(-1)).toMatchObject({ summary: true, status: 200, script: null });
    expect(text).toContain("## Task\nRefactor the parser in src/parser.ts");
    expect(text).toContain("- src/parser.ts (read)");
    // The last two tool results and the user's last message are kept verbatim: not summarized.
    expect(text).not.toContain("parseDocument");
    const tight = await client.chat.completions.create({ ...request, max_tokens: 60 });
    const short = tight.choices[0]!.message.content ?? "";
    expect(countText(short)).toBeLessThanOrEqual(60);
    expect(short).toMatch(/^<sim-summary v=1/);
  });
});
