import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChatMessage } from "@longrun/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corpusDir, corpusSkipNotice } from "./corpus.ts";
import { startTestSimModel, type TestSimModel } from "./sim-model.ts";
import { simTranscript, TRANSCRIPT_SCRIPTS, writeSimTranscripts } from "./sim-transcript.ts";

let sim: TestSimModel;
let dir: string;

beforeAll(async () => {
  sim = await startTestSimModel({ logBodies: false });
  dir = await mkdtemp(join(tmpdir(), "longrun-sim-transcripts-"));
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

/** Every assistant tool call answered right after it, once; no result without its call. */
function pairingProblems(messages: ChatMessage[]): string[] {
  const problems: string[] = [];
  messages.forEach((message, index) => {
    const ids = (message.tool_calls ?? []).map((call) => call.id);
    const results = messages.slice(index + 1, index + 1 + ids.length).map((next) => next.tool_call_id);
    if (ids.length > 0 && JSON.stringify([...results].sort()) !== JSON.stringify([...ids].sort()))
      problems.push(`message ${index}: calls ${ids.join(",")} answered by ${results.join(",")}`);
  });
  return problems;
}

describe("sim transcripts (the default suite's stand-in for real transcripts)", () => {
  it("writes one valid transcript per scripted agent", async () => {
    const paths = await writeSimTranscripts(dir, { baseURL: sim.baseURL, steps: 12 });
    expect(paths.map((path) => path.slice(dir.length + 1))).toEqual(
      TRANSCRIPT_SCRIPTS.map((script) => `sim-${script}.jsonl`),
    );
    for (const path of paths) {
      const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
      const messages = lines.map((line) => ChatMessage.parse(JSON.parse(line)));
      expect(messages[0]?.role).toBe("system");
      expect(messages.filter((message) => message.role === "assistant")).toHaveLength(13);
      expect(messages.at(-1)?.role).toBe("assistant");
      expect(messages.at(-1)?.tool_calls).toBeUndefined();
      expect(pairingProblems(messages), path).toEqual([]);
    }
  });

  it("is deterministic and grows like a real session", async () => {
    const first = await simTranscript({ baseURL: sim.baseURL, steps: 20 });
    const second = await simTranscript({ baseURL: sim.baseURL, steps: 20 });
    expect(second).toEqual(first);
    const tools = new Set(
      first.flatMap((message) => (message.tool_calls ?? []).map((call) => call.function.name)),
    );
    for (const name of ["read_file", "list_dir", "glob", "grep", "write_file", "edit_file", "todo_write"])
      expect(tools).toContain(name);
    expect(JSON.stringify(first).length).toBeGreaterThan(40_000);
  });

  it("carries reasoning state when asked", async () => {
    const messages = await simTranscript({ baseURL: sim.baseURL, steps: 3, reasoning: true });
    const assistants = messages.filter((message) => message.role === "assistant");
    expect(assistants.every((message) => (message.reasoning_details?.length ?? 0) > 0)).toBe(true);
  });
});

describe("corpus directory (opt-in)", () => {
  it("is off without LONGRUN_CORPUS_DIR, on with it, and a wrong path is an error", () => {
    expect(corpusDir({})).toBeNull();
    expect(corpusDir({ LONGRUN_CORPUS_DIR: " " })).toBeNull();
    expect(corpusDir({ LONGRUN_CORPUS_DIR: dir })).toBe(dir);
    expect(() => corpusDir({ LONGRUN_CORPUS_DIR: join(dir, "missing") })).toThrow(/no such folder/);
    expect(corpusSkipNotice("x")).toContain("set LONGRUN_CORPUS_DIR");
  });
});
