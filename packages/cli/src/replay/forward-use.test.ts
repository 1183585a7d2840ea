import { buildSummaryMessage, LEDGER_FOOTER, LEDGER_HEADER } from "@longrun/compaction";
import type { ChatMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { ForwardUse } from "./forward-use.ts";
import { identifiersOf, messageText } from "./identifiers.ts";
import { parseTranscript } from "./transcript.ts";

describe("identifiersOf", () => {
  it("finds paths with their base names and snake, camel and Pascal case symbols", () => {
    const found = identifiersOf(
      "Open ./src/app/route_table.ts (see README.md), call parseHeaders and build HttpServer; MAX_RETRIES is 3.",
    );
    expect([...found].sort()).toEqual(
      [
        "HttpServer",
        "MAX_RETRIES",
        "README.md",
        "parseHeaders",
        "route_table",
        "route_table.ts",
        "src/app/route_table.ts",
      ].sort(),
    );
  });

  it("leaves out plain words, all-caps words, short names and numbers", () => {
    const found = identifiersOf(
      "The Server said OK: HTTP 404 at 1.5 seconds, e.g. a_b and i.e. done. Fixed it.",
    );
    expect([...found]).toEqual([]);
  });

  it("reads a backslash escape written out in code as a separator", () => {
    // The agent wrote `print("\\nTotal:", row_count)`: it used row_count, not a symbol `nTotal`.
    expect([...identifiersOf('print("\\nTotal:", row_count)')]).toEqual(["row_count"]);
  });

  it("reads tool-call arguments as their string values, not their JSON escapes", () => {
    const message: ChatMessage = {
      role: "assistant",
      content: "Editing.",
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: {
            name: "edit_file",
            arguments: JSON.stringify({
              file_path: "lib/user_store.py",
              new_string: "\nnewValue = load_user()",
            }),
          },
        },
      ],
    };
    const found = identifiersOf(messageText(message));
    // The values' identifiers; not the tool's name, the argument names, or "nnewValue" from a raw "\n".
    expect([...found].sort()).toEqual(
      ["load_user", "newValue", "lib/user_store.py", "user_store", "user_store.py"].sort(),
    );
  });
});

/** A transcript as JSONL lines. */
function transcript(messages: ChatMessage[]) {
  return parseTranscript(`${messages.map((message) => JSON.stringify(message)).join("\n")}\n`, "inline");
}

function call(id: string, name: string, args: Record<string, string>): ChatMessage {
  return {
    role: "assistant",
    content: null,
    tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
  };
}

describe("ForwardUse", () => {
  const messages: ChatMessage[] = [
    { role: "system", content: "You edit code. Use run_tests to check; never touch config_base.py." },
    { role: "user", content: "Fix the crash in parse_config.py; it calls loadSettings." },
    call("c1", "read_file", { path: "src/parse_config.py" }),
    { role: "tool", tool_call_id: "c1", content: "def loadSettings(): return read_env_file()" },
    call("c2", "read_file", { path: "src/env_reader.py" }),
    { role: "tool", tool_call_id: "c2", content: "def read_env_file(): ... uses config_base.py" },
    // The next assistant messages: they use loadSettings, read_env_file and env_reader.py (seen before),
    // config_base.py (in the system prompt: always sent) and brand_new_helper (never seen before).
    call("c3", "edit_file", { path: "src/parse_config.py", text: "loadSettings() or brand_new_helper()" }),
    { role: "tool", tool_call_id: "c3", content: "ok" },
    { role: "assistant", content: "Fixed read_env_file in env_reader.py; config_base.py untouched." },
  ];
  const replay = transcript(messages);

  it("needs the identifiers of the next assistant messages that appeared before the call point", () => {
    const forward = new ForwardUse(replay, [], 10);
    expect([...forward.needed(6)].sort()).toEqual(
      [
        "env_reader",
        "env_reader.py",
        "loadSettings",
        "parse_config",
        "parse_config.py",
        "read_env_file",
        "src/parse_config.py",
      ].sort(),
    );
    // Only the next N assistant messages count: with N = 1 the final answer is out of reach.
    expect([...new ForwardUse(replay, [], 1).needed(6)]).not.toContain("env_reader.py");
  });

  it("finds them in the request, whole and without the summarizer's text (ledger kept)", () => {
    const forward = new ForwardUse(replay, [], 10);
    const ledger = `${LEDGER_HEADER}\n- read src/env_reader.py #4\n${LEDGER_FOOTER}`;
    const summary = buildSummaryMessage(
      "The user wants parse_config.py fixed; loadSettings calls read_env_file.",
      { strategy: "partial", summarizedMessages: 4 },
      ledger,
    );
    // A request after a compaction: the summary, then the recent tail (the second read) verbatim.
    const request: ChatMessage[] = [messages[0] as ChatMessage, summary, ...messages.slice(4, 6)];
    const count = forward.measure(6, request);
    expect(count.needed).toBe(7);
    // Whole: the summary names parse_config.py, loadSettings and read_env_file; the tail env_reader.py.
    // src/parse_config.py (the path) is only in the compacted read.
    expect(count.whole).toBe(6);
    // Without the summarizer's text: the ledger's src/env_reader.py, the tail's read_env_file and
    // env_reader.py — env_reader (the base name's stem) too.
    expect(count.withoutSummary).toBe(3);
  });
});
