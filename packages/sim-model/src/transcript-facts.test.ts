import { describe, expect, it } from "vitest";
import { toolDefinitions } from "./fake-workspace.ts";
import { agentTurn } from "./scripts/agent-turn.ts";
import { readTranscript } from "./transcript-facts.ts";
import type { WireMessage } from "./wire.ts";

const call = (id: string, name: string, args: unknown): WireMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
});

describe("files the sim reads off a transcript", () => {
  it("takes no path from the partial line after an output cut", () => {
    // The runtime cuts long output in the middle; the kept tail starts mid-line.
    const output = `src/api.ts:26: app.get("/v1/items/25");\n\n[output cut: 11850 of 15999 characters omitted]\n\ner.ts:75: export const entry74 = 1;\nsrc/stock.ts:3: export const stock = 2;`;
    const facts = readTranscript([
      call("c1", "grep", { pattern: "export ", path: "." }),
      { role: "tool", tool_call_id: "c1", content: output },
    ]);
    expect([...facts.discovered].sort()).toEqual(["src/api.ts", "src/stock.ts"]);
  });

  it("takes no path from the tail of a clipped word", () => {
    const summary =
      "[Context summary — earlier conversation compacted]\n<sim-summary v=1 step=3 done=0>\n- Step 2: reading …er.ts and src/ledger.ts.\n</sim-summary>";
    const facts = readTranscript([{ role: "user", content: summary }]);
    expect(facts.discovered.has("er.ts")).toBe(false);
    expect(facts.discovered.has("src/ledger.ts")).toBe(true);
  });
});

describe("what the explorer reads", () => {
  it("never reads a folder it listed", () => {
    const messages: WireMessage[] = [{ role: "user", content: "Explore this project." }];
    for (let step = 0; step < 12; step++) {
      messages.push(call(`l${step}`, "list_dir", { path: "." }));
      messages.push({ role: "tool", tool_call_id: `l${step}`, content: "README.md\nsrc/" });
    }
    const readsSeen: number[] = [];
    for (let step = 0; step < 14; step++) {
      const turn = agentTurn(
        {
          model: "sim",
          messages: messages.slice(0, 1 + 2 * step),
          tools: toolDefinitions(["read_file", "list_dir"]),
        },
        "explorer",
        30,
        "t",
      );
      const reads = turn.toolCalls.filter((planned) => planned.function.name === "read_file");
      for (const planned of reads) expect(JSON.parse(planned.function.arguments).path).not.toBe(".");
      if (reads.length > 0) readsSeen.push(step);
    }
    // It reads: README.md, the one file the listings name.
    expect(readsSeen.length).toBeGreaterThan(0);
  });
});
