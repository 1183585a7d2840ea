import { describe, expect, it } from "vitest";
import { detectClientCompaction } from "./client-compaction.ts";
import { encodeProviderState } from "./encrypted-state.ts";
import { parseResponsesRequest, ResponsesRequestBody } from "./parse-responses-request.ts";

/** Shaped like what Codex CLI 0.171 sends (measured): developer messages first, then the conversation. */
function codexBody(input: unknown[], extra: Record<string, unknown> = {}) {
  return ResponsesRequestBody.parse({
    model: "sim:script=codex",
    instructions: "",
    input: [
      {
        type: "message",
        role: "developer",
        content: [{ type: "input_text", text: "You are a coding agent." }],
      },
      {
        type: "message",
        role: "developer",
        content: [{ type: "input_text", text: "<skills_instructions/>" }],
      },
      { type: "message", role: "user", content: [{ type: "input_text", text: "<environment_context/>" }] },
      ...input,
    ],
    tools: [
      {
        type: "function",
        name: "exec_command",
        description: "Runs a command",
        strict: false,
        parameters: { type: "object" },
      },
      {
        type: "namespace",
        name: "multi_agent_v1",
        description: "sub-agents",
        tools: [{ type: "function", name: "spawn_agent", parameters: { type: "object" } }],
      },
      { type: "custom", name: "apply_patch", description: "Patch files", format: { type: "grammar" } },
      { type: "web_search" },
    ],
    tool_choice: "auto",
    parallel_tool_calls: true,
    reasoning: { summary: "auto" },
    store: false,
    stream: true,
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "session-1",
    ...extra,
  });
}

describe("parseResponsesRequest", () => {
  it("takes leading developer messages as the system text and the rest as facts", () => {
    const turn = parseResponsesRequest(
      codexBody([
        { type: "message", role: "user", content: [{ type: "input_text", text: "Write hello.txt" }] },
      ]),
    );
    expect(turn.api).toBe("responses");
    expect(turn.system).toBe("You are a coding agent.\n\n<skills_instructions/>");
    expect(turn.items).toEqual([
      { role: "user", content: "<environment_context/>" },
      { role: "user", content: "Write hello.txt" },
    ]);
    expect(turn.promptCacheKey).toBe("session-1");
    expect(turn.stream).toBe(true);
  });

  it("flattens namespace tools, turns custom tools into one-string functions and drops built-in tools", () => {
    const turn = parseResponsesRequest(codexBody([]));
    expect(turn.tools.map((tool) => tool.function.name)).toEqual([
      "exec_command",
      "multi_agent_v1__spawn_agent",
      "apply_patch",
    ]);
    expect(turn.toolRoutes.multi_agent_v1__spawn_agent).toEqual({
      kind: "function",
      name: "spawn_agent",
      namespace: "multi_agent_v1",
    });
    expect(turn.toolRoutes.apply_patch).toEqual({ kind: "custom", name: "apply_patch" });
    expect(turn.tools[2]?.function.parameters).toMatchObject({ required: ["input"] });
    expect(turn.droppedTools).toEqual(["web_search"]);
    expect(turn.toolChoice).toBe("auto");
  });

  it("folds reasoning, text and calls of one answer into one assistant fact, with longrun's state decoded", () => {
    const state = { reasoningDetails: [{ type: "reasoning.encrypted" as const, data: "abc" }] };
    const turn = parseResponsesRequest(
      codexBody([
        { type: "message", role: "user", content: [{ type: "input_text", text: "go" }] },
        { type: "reasoning", id: "rs_1", summary: [], encrypted_content: encodeProviderState(state) },
        {
          type: "message",
          id: "m1",
          role: "assistant",
          content: [{ type: "output_text", text: "Running." }],
        },
        { type: "function_call", id: "fc1", call_id: "c1", name: "exec_command", arguments: '{"cmd":"ls"}' },
        {
          type: "function_call",
          id: "fc2",
          call_id: "c2",
          name: "spawn_agent",
          namespace: "multi_agent_v1",
          arguments: "{}",
        },
        { type: "function_call_output", call_id: "c1", output: "a.txt" },
        { type: "function_call_output", call_id: "c2", output: [{ type: "input_text", text: "spawned" }] },
        { type: "custom_tool_call", call_id: "c3", name: "apply_patch", input: "*** Begin Patch" },
        { type: "custom_tool_call_output", call_id: "c3", output: "Done" },
        { type: "reasoning", id: "rs_2", summary: [], encrypted_content: "gAAAA-not-ours" },
      ]),
    );
    expect(turn.items.slice(1)).toEqual([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "Running.",
        providerState: state,
        toolCalls: [
          { id: "c1", type: "function", function: { name: "exec_command", arguments: '{"cmd":"ls"}' } },
          { id: "c2", type: "function", function: { name: "multi_agent_v1__spawn_agent", arguments: "{}" } },
        ],
      },
      { role: "tool", content: "a.txt", toolCallId: "c1" },
      { role: "tool", content: "spawned", toolCallId: "c2" },
      {
        role: "assistant",
        content: null,
        toolCalls: [
          {
            id: "c3",
            type: "function",
            function: { name: "apply_patch", arguments: '{"input":"*** Begin Patch"}' },
          },
        ],
      },
      { role: "tool", content: "Done", toolCallId: "c3" },
    ]);
  });

  it("accepts a plain string input", () => {
    const turn = parseResponsesRequest(
      ResponsesRequestBody.parse({ model: "m", input: "hi", max_output_tokens: 512 }),
    );
    expect(turn.items).toEqual([{ role: "user", content: "hi" }]);
    expect(turn.maxOutputTokens).toBe(512);
    expect(turn.sampling.max_completion_tokens).toBe(512);
    expect(turn.tools).toEqual([]);
  });

  it("reads Codex's compaction_trigger item as a compaction asked for, and sends nothing of it upstream", () => {
    const turn = parseResponsesRequest(
      ResponsesRequestBody.parse({
        model: "m",
        input: [
          { type: "message", role: "user", content: "Fix the tests." },
          { type: "message", role: "assistant", content: "Done." },
          { type: "compaction_trigger" },
        ],
        tools: [{ type: "function", name: "exec_command", parameters: { type: "object" } }],
      }),
    );
    expect(turn.compactionRequested).toBe(true);
    expect(turn.items).toEqual([
      { role: "user", content: "Fix the tests." },
      { role: "assistant", content: "Done." },
    ]);
    expect(detectClientCompaction(turn, () => undefined)).toEqual({
      client: "codex",
      conversationItems: turn.items,
    });
  });
});
