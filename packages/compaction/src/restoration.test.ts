import { describe, expect, it } from "vitest";
import { planRestoration } from "./restoration.ts";
import { createTokenizer } from "./tokenizer.ts";

const tokenizer = createTokenizer();

describe("planRestoration", () => {
  it("restores newest text files within budgets and never inserts binary", () => {
    const big = Array.from({ length: 3_000 }, (_, line) => `const value${line} = ${line};`).join("\n");
    const plan = planRestoration({
      tokenizer,
      files: [
        { path: "old.ts", content: "export const old = 1;", readAt: 1 },
        { path: "image.png", content: new Uint8Array([137, 80, 78, 71, 0, 1, 2]), readAt: 9 },
        { path: "latin1.txt", content: new Uint8Array([0xff, 0xfe, 0x41]), readAt: 8 },
        { path: "big.ts", content: big, readAt: 7 },
        { path: "new.ts", content: new TextEncoder().encode("export const fresh = 2;\n"), readAt: 6 },
      ],
      state: { plan: "Ship it", todos: [{ content: "write tests", status: "in_progress" }] },
      budgets: { maxFiles: 2 },
    });
    expect(plan.items.filter((item) => item.kind === "file").map((item) => item.path)).toEqual([
      "big.ts",
      "new.ts",
    ]);
    expect(plan.skipped).toEqual([
      { path: "image.png", reason: "binary" },
      { path: "latin1.txt", reason: "binary" },
      { path: "old.ts", reason: "budget" },
    ]);
    const bigItem = plan.items[0];
    expect(bigItem?.tokens).toBeLessThanOrEqual(2_100);
    expect(String(plan.messages[0]?.content)).toMatch(/more lines not restored/);
    expect(plan.messages.every((message) => message.role === "user")).toBe(true);
    expect(String(plan.messages[2]?.content)).toContain("- [~] write tests");
  });

  it("names the version it restores in the block and the item (a snapshot or the current file)", () => {
    const plan = planRestoration({
      tokenizer,
      files: [
        { path: "a.ts", content: "export const a = 1;", readAt: 2, version: "current" },
        {
          path: "b.ts",
          content: "export const b = 1;",
          readAt: 1,
          version: "as of message #12, the agent's last write; changed since",
        },
        { path: "c.ts", content: "export const c = 1;", readAt: 0 },
      ],
    });
    expect(plan.messages.map((message) => String(message.content).split("\n")[0])).toEqual([
      expect.stringMatching(/^\[Restored after compaction: a\.ts \(current\) \(last read /),
      expect.stringMatching(
        /^\[Restored after compaction: b\.ts \(as of message #12, the agent's last write; changed since\)/,
      ),
      // No version named (events recorded before versions were): the block reads as it always did.
      expect.stringMatching(/^\[Restored after compaction: current contents of c\.ts \(last read /),
    ]);
    expect(plan.items.map((item) => item.version)).toEqual([
      "current",
      "as of message #12, the agent's last write; changed since",
      undefined,
    ]);
  });
});
