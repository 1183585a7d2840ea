import { ChatMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { fromCline } from "./cline.ts";
import { fromOpenHands, type OpenHandsEvent } from "./openhands.ts";

// Hand-written in the shapes those agents record (not copied from any log).
function response(id: string, content: string, calls: [string, string, Record<string, unknown>][]) {
  return {
    id,
    choices: [
      {
        message: {
          content,
          tool_calls: calls.map(([callId, name, args]) => ({
            id: callId,
            function: { name, arguments: JSON.stringify(args) },
          })),
        },
      },
    ],
  };
}

const OPENHANDS: OpenHandsEvent[] = [
  { action: "system", source: "agent", message: "You are an agent." },
  { action: "message", source: "user", message: "Fix the parser." },
  {
    action: "run",
    source: "agent",
    tool_call_metadata: {
      tool_call_id: "t1",
      model_response: response("r1", "Build first.", [["t1", "execute_bash", { command: "make" }]]),
    },
  },
  {
    observation: "run",
    source: "agent",
    content: "make: *** [Makefile:3: all] Error 2",
    extras: { metadata: { exit_code: 2, suffix: "\n[The command completed with exit code 2.]" } },
    tool_call_metadata: { tool_call_id: "t1" },
  },
  {
    action: "edit",
    source: "agent",
    tool_call_metadata: {
      tool_call_id: "t2",
      model_response: response("r2", "", [
        ["t2", "str_replace_editor", { command: "str_replace", path: "/w/p.c", old_str: "a", new_str: "b" }],
      ]),
    },
  },
  {
    observation: "edit",
    source: "agent",
    content: "ERROR:\nNo replacement was performed, old_str `a` did not appear verbatim in /w/p.c.",
    extras: {},
    tool_call_metadata: { tool_call_id: "t2" },
  },
  {
    action: "finish",
    source: "agent",
    tool_call_metadata: {
      tool_call_id: "t3",
      model_response: response("r3", "Done.", [["t3", "finish", {}]]),
    },
  },
];

describe("OpenHands history to replay messages", () => {
  it("keeps the exit-code line the model saw in as-seen, drops it in text-only, and records the codes apart", () => {
    const seen = fromOpenHands(OPENHANDS, "as-seen");
    const text = fromOpenHands(OPENHANDS, "text-only");
    for (const converted of [seen, text]) {
      for (const message of converted.messages) expect(ChatMessage.safeParse(message).success).toBe(true);
      expect(converted.messages.map((message) => message.role)).toEqual([
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
      ]);
    }
    expect(seen.messages[3]?.content).toBe(
      "make: *** [Makefile:3: all] Error 2\n[The command completed with exit code 2.]",
    );
    expect(text.messages[3]?.content).toBe("make: *** [Makefile:3: all] Error 2");
    expect(seen.messages[4]?.tool_calls?.[0]?.function.name).toBe("str_replace_editor");
    // The finish call has no observation: its message stays, without a call nobody answered.
    expect(seen.messages[6]).toEqual({ role: "assistant", content: "Done." });
    expect(text.truth).toEqual([
      { toolCallId: "t1", exitCode: 2, errorEvent: false },
      { toolCallId: "t2", exitCode: null, errorEvent: false },
    ]);
  });
});

const CLINE = `**User:**

<task>
Make the script take the model name.
</task>
<environment_details>
# Current Mode
ACT MODE
</environment_details>

---

**Assistant:**

I will run it first.

\`\`\`tool_use
<execute_command>
<command>shard-sd -o out.md in.md</command>
<requires_approval>false</requires_approval>
<task_progress>
- [ ] run it
</task_progress>
</execute_command>
\`\`\`

---

**User:**

[execute_command for 'shard-sd -o out.md in.md'] Result:
Command executed.
Output:
zsh: command not found: shard-sd
<environment_details>
# Current Time
9/13/2025, 1:39:03 PM
</environment_details>

---

**Assistant:**

<write_to_file>
<path>bin/shard-sd</path>
<content>
#!/bin/bash
echo hi
</content>
</write_to_file>

---

**User:**

The user denied this operation.

---

**Assistant:**

Understood; stopping here.
`;

describe("Cline task export to replay messages", () => {
  it("turns each XML tool use into a call and the next Result turn into its answer, without environment details", () => {
    const messages = fromCline(CLINE);
    for (const message of messages) expect(ChatMessage.safeParse(message).success).toBe(true);
    expect(messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(messages[0]?.content).toBe("<task>\nMake the script take the model name.\n</task>");
    expect(messages[1]?.content).toBe("I will run it first.");
    expect(messages[1]?.tool_calls?.[0]?.function).toEqual({
      name: "execute_command",
      arguments: JSON.stringify({ command: "shard-sd -o out.md in.md", requires_approval: "false" }),
    });
    expect(messages[2]).toEqual({
      role: "tool",
      tool_call_id: messages[1]?.tool_calls?.[0]?.id,
      content: "Command executed.\nOutput:\nzsh: command not found: shard-sd",
    });
    // A write the user denied has no result: the call is dropped, its text kept.
    expect(messages[3]?.tool_calls).toBeUndefined();
    expect(messages[4]?.content).toBe("The user denied this operation.");
  });
});
