import type { ChatMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { installBenchLibraries } from "./bench-libraries.ts";

// The libraries are installed on first use (bench-libraries.ts), before the conversions that import them load.
await installBenchLibraries();
const { fromModelMessage, toModelMessage } = await import("./libraries/ai-convert.ts");
const { fromLangChain, toLangChain } = await import("./libraries/langchain-convert.ts");

const conversation: ChatMessage[] = [
  { role: "system", content: "sys" },
  { role: "user", content: "task", name: "meta" },
  {
    role: "assistant",
    content: "reading",
    tool_calls: [
      { id: "a", type: "function", function: { name: "Read", arguments: '{"file_path":"/x.ts"}' } },
      { id: "b", type: "function", function: { name: "bash", arguments: "not json" } },
    ],
  },
  { role: "tool", tool_call_id: "a", content: "1\tconst x = 1;" },
  { role: "tool", tool_call_id: "b", content: "ok" },
  { role: "assistant", content: "done" },
];

describe("library message conversions", () => {
  it("round-trips through LangChain messages", () => {
    const back = conversation.map((message, index) => fromLangChain(toLangChain(message, `m${index}`)));
    expect(back).toEqual(conversation);
  });

  it("round-trips through AI SDK model messages", () => {
    const back = conversation.flatMap((message) => fromModelMessage(toModelMessage(message)));
    expect(back).toEqual(conversation.map(({ name: _name, ...rest }) => rest));
  });
});
