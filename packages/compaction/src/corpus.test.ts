import { describe, expect, it } from "vitest";
import { assembleRaw } from "./assemble.ts";
import { classifyTool, shellCommandOf } from "./classify.ts";
import { collapseTraces } from "./collapse.ts";
import {
  CORPUS_DIR,
  CORPUS_SKIP_NOTICE,
  corpusFacts,
  corpusFiles,
  readCorpus,
} from "./corpus.test-helper.ts";
import { toolPairViolation } from "./invariants.test-helper.ts";
import { project } from "./project.ts";
import { createTokenizer } from "./tokenizer.ts";
import { truncateArguments } from "./truncate.ts";

const tokenizer = createTokenizer("o200k_base");
// Anything that can change a file or run a program; a command with one of these is never "read".
const WRITE_SIGNS =
  /(^|[^0-9&])>(?!\s*\/dev\/null|&)|\bsed\s+-i|<<|git\s+(apply|checkout|commit|stash|reset)|(^|&&|;|\||\n)\s*(python\d?|pip|rm|mv|cp|mkdir|touch|chmod|patch|tee)\b/;

if (!CORPUS_DIR) console.info(CORPUS_SKIP_NOTICE);

describe.skipIf(!CORPUS_DIR)("shell classification on the mini-swe-agent corpus", () => {
  const commands = corpusFiles("mini-").flatMap((file) =>
    readCorpus(file).flatMap((message) =>
      (message.tool_calls ?? []).map((call) => shellCommandOf(call.function.arguments) ?? ""),
    ),
  );

  it("never classifies a writing command as a read", () => {
    expect(commands.length).toBeGreaterThan(500);
    const reads = commands.filter((command) => classifyTool("bash", JSON.stringify({ command })) !== "write");
    for (const command of reads) expect(command).not.toMatch(WRITE_SIGNS);
    // Most mini-swe-agent steps are exploration: a good share must be recognised as reads.
    expect(reads.length / commands.length).toBeGreaterThan(0.3);
  });

  it("classifies typical commands", () => {
    const kind = (command: string): string => classifyTool("bash", JSON.stringify({ command }));
    expect(kind("cd /testbed && sed -n '308,320p' astroid/modutils.py")).toBe("read");
    expect(kind('grep -r "with_clause" src/sqlfluff --include="*.py" | head -20')).toBe("search");
    expect(kind("find . -type f -name '*.py' | head -30")).toBe("search");
    expect(kind("git diff src/sqlfluff/rules/L036.py")).toBe("read");
    expect(kind("ls -la astroid/ 2>/dev/null")).toBe("read");
    expect(kind("cd /testbed && git diff a.py > patch.txt")).toBe("write");
    expect(kind("cd /testbed && sed -i '/^import os$/a\\import x' a.py")).toBe("write");
    expect(kind("cat > test.py << 'EOF'\nprint(1)\nEOF")).toBe("write");
    expect(kind("python test_reproduce.py 2>&1")).toBe("write");
    expect(kind("cat a.txt | tee b.txt")).toBe("write");
    expect(kind("find . -name '*.pyc' -delete")).toBe("write");
    expect(kind("cat $(rm -rf x)")).toBe("write");
    expect(kind("find . -name '*.tmp' -exec rm {} \\;")).toBe("write");
    expect(kind('find tests -name "*.py" -exec grep -l "x" {} \\; | head -10')).toBe("search");
  });
});

describe.skipIf(!CORPUS_DIR)("deterministic stages on the Claude Code corpus", () => {
  for (const file of corpusFiles("cc-")) {
    it(`${file}: collapse saves tokens and keeps tool pairs valid`, () => {
      const raw = assembleRaw(corpusFacts(file, tokenizer), null, tokenizer);
      const result = collapseTraces(raw.items, { tokenizer });
      expect(result.saved).toBeGreaterThan(0);
      expect(toolPairViolation(result.items.map((item) => item.message))).toBeNull();
      const record = result.items.find((item) => item.mark === "collapsed");
      expect(String(record?.message.content)).toMatch(/^\[collapsed \d+ earlier read\/search calls?/);
    });
  }

  it("truncate saves tokens on write-heavy sessions with valid JSON arguments", () => {
    let saved = 0;
    for (const file of corpusFiles("cc-")) {
      const raw = assembleRaw(corpusFacts(file, tokenizer), null, tokenizer);
      const result = truncateArguments(raw.items, { tokenizer });
      saved += result.saved;
      for (const item of result.items) {
        for (const call of item.message.tool_calls ?? [])
          expect(() => JSON.parse(call.function.arguments)).not.toThrow();
      }
    }
    expect(saved).toBeGreaterThan(0);
  });

  it("project() on a full session stays valid and reports each stage", () => {
    const facts = corpusFacts("cc-258c7280.jsonl", tokenizer);
    const last = facts[facts.length - 1];
    const projection = project({
      systemPrompt: "You are Claude Code.",
      messages: facts,
      compaction: null,
      state: null,
      profile: { maxInputTokens: 128_000 },
      now: (last?.createdAt ?? 0) + 7 * 3_600_000,
      tokenizer,
    });
    expect(toolPairViolation(projection.messages)).toBeNull();
    expect(projection.stages.map((stage) => stage.name)).toEqual(["collapse", "truncate", "microcompact"]);
    expect(projection.saved.collapse).toBeGreaterThan(0);
    expect(projection.tokens).toBeLessThan(projection.rawTokens);
    for (const stage of projection.stages) expect(stage.tokensAfter).toBeLessThanOrEqual(stage.tokensBefore);
  });
});
