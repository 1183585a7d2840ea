import type { StoredMessage, ToolCall, ToolStatus } from "@longrun/protocol";
import fc from "fast-check";

/** One step of a generated agent history. */
type Step =
  | { kind: "user"; text: string }
  | { kind: "text"; text: string }
  | { kind: "orphan"; text: string }
  | { kind: "flush"; reverse: boolean }
  | { kind: "explore"; groups: number; lines: number }
  | {
      kind: "calls";
      text: string;
      calls: {
        tool: number;
        big: boolean;
        size: number;
        fate: "now" | "later" | "missing" | "dup";
        status: ToolStatus;
      }[];
      reverse: boolean;
      reuseId: boolean;
      reasoning: boolean;
      usage: number | null;
    };

const TOOLS: [string, string][] = [
  ["read_file", JSON.stringify({ path: "src/a.ts", start_line: 1, end_line: 40 })],
  ["grep", JSON.stringify({ pattern: "foo", path: "src" })],
  ["bash", JSON.stringify({ command: "cat src/a.ts | head -n 20" })],
  ["bash", JSON.stringify({ command: "echo hi > out.txt" })],
  ["Edit", JSON.stringify({ file_path: "src/b.ts", old_string: "a", new_string: "b" })],
  ["Glob", JSON.stringify({ pattern: "**/*.ts" })],
];

const text = fc.constantFrom("ok", "look at src/a.ts", "fix the bug", "", "done?", "x".repeat(300));

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("user" as const), text }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("text" as const), text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("orphan" as const), text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("flush" as const), reverse: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("explore" as const),
      groups: fc.integer({ min: 2, max: 4 }),
      lines: fc.constantFrom(3, 40),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("calls" as const),
      text,
      calls: fc.array(
        fc.record({
          tool: fc.nat({ max: TOOLS.length - 1 }),
          big: fc.nat({ max: 9 }).map((roll) => roll === 0),
          size: fc.constantFrom(1, 3, 40, 80),
          fate: fc.constantFrom("now", "now", "now", "later", "missing", "dup"),
          status: fc.constantFrom<ToolStatus>("ok", "ok", "error", "cancelled"),
        }),
        { minLength: 1, maxLength: 3 },
      ),
      reverse: fc.boolean(),
      reuseId: fc.nat({ max: 19 }).map((roll) => roll === 0),
      reasoning: fc.boolean(),
      usage: fc.option(fc.nat({ max: 3_000 }), { nil: null }),
    }),
  },
);

/** Generated histories: parallel calls, reordered/late/missing/duplicate results, orphans, reasoning, usage, huge arguments. */
export const historyArbitrary: fc.Arbitrary<StoredMessage[]> = fc
  .array(step, { minLength: 1, maxLength: 14 })
  .map((steps) => buildHistory(steps));

/** Builds stored facts from steps, deterministically. */
export function buildHistory(steps: readonly Step[]): StoredMessage[] {
  const facts: StoredMessage[] = [];
  let callCounter = 0;
  let lastCallId: string | null = null;
  let pending: StoredMessage[] = [];
  const push = (fact: Omit<StoredMessage, "id" | "agentId" | "seq" | "tokenCount" | "createdAt">): void => {
    const seq = facts.length;
    facts.push({
      ...fact,
      id: `f${seq}`,
      agentId: "a",
      seq,
      tokenCount: 0,
      createdAt: 1_000_000 + seq * 1_000,
    });
  };
  const result = (
    call: ToolCall,
    status: ToolStatus,
    lines: number,
  ): Omit<StoredMessage, "id" | "agentId" | "seq" | "tokenCount" | "createdAt"> => ({
    role: "tool",
    content: `result of ${call.id}:\n${"src/a.ts:12: const x = 1;\n".repeat(lines)}`,
    toolCallId: call.id,
    toolStatus: status,
  });
  for (const item of steps) {
    if (item.kind === "user") push({ role: "user", content: item.text });
    else if (item.kind === "text") push({ role: "assistant", content: item.text || "thinking" });
    else if (item.kind === "orphan")
      push({ role: "tool", content: item.text, toolCallId: `ghost_${facts.length}`, toolStatus: "ok" });
    else if (item.kind === "explore") {
      // A run of completed read/search traces, the shape collapse works on.
      for (let group = 0; group < item.groups; group++) {
        const [name, args] = TOOLS[group % 3] as [string, string];
        const call: ToolCall = {
          id: `call_${callCounter++}`,
          type: "function",
          function: { name, arguments: args },
        };
        push({ role: "assistant", content: group === 0 ? "exploring" : null, toolCalls: [call] });
        push(result(call, "ok", item.lines));
      }
    } else if (item.kind === "flush") {
      const batch = item.reverse ? [...pending].reverse() : pending;
      for (const fact of batch) push(fact);
      pending = [];
    } else {
      const calls: ToolCall[] = item.calls.map((spec, index) => {
        const [name, args] = TOOLS[spec.tool] as [string, string];
        const reuse = index === 0 && item.reuseId && lastCallId !== null;
        const id = reuse ? (lastCallId as string) : `call_${callCounter++}`;
        const big = spec.big ? JSON.stringify({ file_path: "big.txt", content: "y".repeat(5_000) }) : args;
        return { id, type: "function", function: { name, arguments: big } };
      });
      lastCallId = calls[calls.length - 1]?.id ?? lastCallId;
      const fact: Omit<StoredMessage, "id" | "agentId" | "seq" | "tokenCount" | "createdAt"> = {
        role: "assistant",
        content: item.text === "" ? null : item.text,
        toolCalls: calls,
      };
      if (item.reasoning) {
        fact.providerState = {
          reasoningDetails: [{ type: "reasoning.encrypted", data: "ZW5jcnlwdGVk" }],
          reasoningContent: "private thoughts",
        };
      }
      if (item.usage !== null) {
        fact.usage = {
          promptTokens: item.usage,
          completionTokens: 20,
          reasoningTokens: 5,
          totalTokens: item.usage + 20,
        };
      }
      push(fact);
      const now: StoredMessage[] = [];
      item.calls.forEach((spec, index) => {
        const call = calls[index] as ToolCall;
        const made = {
          ...result(call, spec.status, spec.size),
          id: "",
          agentId: "",
          seq: 0,
          tokenCount: 0,
          createdAt: 0,
        };
        if (spec.fate === "now") now.push(made);
        else if (spec.fate === "later") pending.push(made);
        else if (spec.fate === "dup") now.push(made, { ...made, content: "duplicate" });
      });
      for (const fact of item.reverse ? now.reverse() : now) push(fact);
    }
  }
  return facts;
}
