import type { ChatMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { createTokenizer } from "../tokenizer.ts";
import { foldNames, isName, namesIn, namesInArguments, ownerOf } from "./names.ts";
import { NAMES_MIN_BUDGET, NAMES_SHARE, renderLedger } from "./render-ledger.ts";
import { type LedgerSource, updateLedger } from "./update-ledger.ts";

const tokenizer = createTokenizer("o200k_base");

function call(id: string, name: string, args: unknown, step: number): LedgerSource {
  const message: ChatMessage = {
    role: "assistant",
    content: null,
    tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
  };
  return { message, step };
}

function result(id: string, content: string, step: number): LedgerSource {
  return { message: { role: "tool", tool_call_id: id, content }, step };
}

describe("names index", () => {
  it("takes files and symbols an agent names, not plain words, numbers or URLs", () => {
    expect(namesIn("Fix load_config in src/app/config.py; parseArgs and HttpServer too.")).toEqual([
      "load_config",
      "src/app/config.py",
      "parseArgs",
      "HttpServer",
    ]);
    for (const word of ["Error", "the", "README", "1.2.3", "https://x.org/a.html", "and/or", "__"])
      expect(isName(word), word).toBe(false);
    for (const word of ["setup.cfg", "test_parse", "getUserName", "QuerySet", "MAX_RETRIES"])
      expect(isName(word), word).toBe(true);
    // Dotted references whose last part is up to eight characters: modules, methods, tasks.
    for (const word of ["os.makedirs", "cursor.execute", "ecto.migrate", "module.coffee"])
      expect(isName(word), word).toBe(true);
    expect(isName("astroid.manager.AstroidManager")).toBe(true);
    expect(isName("release.candidate")).toBe(false);
  });

  it("reads a backslash escape written out in code as a separator, not as part of a name", () => {
    // A heredoc with `print("\\nTotal rows:", row_count)` holds a backslash and an n, not `nTotal`.
    expect(namesIn('print("\\nTotal rows:", row_count)\tprint("\\nParseError")')).toEqual([
      "row_count",
      "ParseError",
    ]);
    expect(namesIn("C:\\repo\\src\\load_config.py")).toContain("load_config.py");
  });

  it("reads a call's arguments as the values it carries, not as JSON text", () => {
    const args = JSON.stringify({ old_string: "x = 1\nload_config()", path: "src/cfg.py" });
    expect(namesInArguments(args)).toEqual(["load_config", "src/cfg.py"]);
    expect(namesInArguments('{"broken": "a\\nparse_args')).toContain("parse_args");
  });

  it("keeps the file a name was seen in and counts the agent's uses, used names ranked first", () => {
    const sources = [
      { message: { role: "user", content: "The parser drops comments." }, step: 0 } as LedgerSource,
      call("c1", "read_file", { path: "src/lexer.py" }, 1),
      result(
        "c1",
        "def tokenize_line(text):\n    ...\nclass CommentToken:\n    pass\ndef unused_helper():",
        2,
      ),
      {
        message: { role: "assistant", content: "tokenize_line skips CommentToken; I will patch it." },
        step: 3,
      } as LedgerSource,
      call("c2", "run", { command: "pytest tests/test_lexer.py -k tokenize_line" }, 4),
      result("c2", "1 failed", 5),
    ];
    const ledger = updateLedger({ messages: sources });
    const names = ledger.names ?? [];
    expect(names[0]).toMatchObject({ name: "tokenize_line", file: "src/lexer.py", uses: 2, step: 4 });
    expect(names.find((entry) => entry.name === "CommentToken")).toMatchObject({
      file: "src/lexer.py",
      uses: 1,
    });
    expect(names.find((entry) => entry.name === "unused_helper")).toMatchObject({ uses: 0 });

    const rendered = renderLedger(ledger, { budgetTokens: 800, tokenizer }).text;
    expect(rendered).toMatch(/Names in use \(file: names\): .*src\/lexer\.py: tokenize_line, CommentToken/);
    // A path the ledger lists as read is not repeated as a name.
    expect(rendered.match(/src\/lexer\.py/g)?.length).toBe(2);
  });

  it("does not repeat a listed file as a name, whether named by its base name, a tail of its path or the path without its slash", () => {
    const sources = [
      call("c1", "edit_file", { path: "/repo/lib/app/session_live.ex" }, 1),
      result("c1", "The file /repo/lib/app/session_live.ex has been updated.", 2),
      {
        message: {
          role: "assistant",
          content:
            "Edited lib/app/session_live.ex and session_live.ex (repo/lib/app/session_live.ex); next handle_event in app/other_live.ex.",
        },
        step: 3,
      } as LedgerSource,
    ];
    const ledger = updateLedger({ messages: sources });
    const line =
      renderLedger(ledger, { budgetTokens: 800, tokenizer })
        .text.split("\n")
        .find((text) => text.startsWith("Names in use")) ?? "";
    expect(line).toContain("handle_event");
    expect(line).toContain("app/other_live.ex");
    expect(line).not.toContain("session_live.ex");
  });

  it("stays within its share of the budget, and small budgets hold no names", () => {
    const sightings = Array.from({ length: 300 }, (_, index) => ({
      names: [`symbol_number_${index}`],
      step: index,
      used: true,
    }));
    const ledger = { ...updateLedger({ messages: [] }), names: foldNames([], sightings) };
    const budget = 1_000;
    const rendered = renderLedger(ledger, { budgetTokens: budget, tokenizer });
    const line = rendered.text.split("\n").find((text) => text.startsWith("Names in use")) ?? "";
    expect(line.length).toBeGreaterThan(0);
    expect(tokenizer.count(line)).toBeLessThanOrEqual(Math.ceil(budget * NAMES_SHARE) + 16);
    // The newest names are the ones kept.
    expect(line).toContain("symbol_number_299");
    expect(line).not.toContain("symbol_number_0,");
    const small = renderLedger(ledger, { budgetTokens: NAMES_MIN_BUDGET - 1, tokenizer });
    expect(small.text).not.toContain("Names in use");
  });

  it("leaves out the names and user notes the request shows anyway, and fills their room with others", () => {
    const sightings = Array.from({ length: 300 }, (_, index) => ({
      names: [`symbol_number_${index}`],
      step: index,
      used: true,
    }));
    const base = updateLedger({
      messages: [{ message: { role: "user", content: "Fix the parser in src/lexer.py." }, step: 0 }],
    });
    const ledger = { ...base, names: foldNames([], sightings) };
    const options = { budgetTokens: 1_000, tokenizer };
    const without = renderLedger(ledger, options).text;
    expect(without).toContain("symbol_number_299");
    expect(without).toContain('User said: #0 "Fix the parser in src/lexer.py."');
    const shownNames = new Set(Array.from({ length: 20 }, (_, index) => `symbol_number_${299 - index}`));
    const visible = { names: shownNames, text: "Fix the parser in src/lexer.py." };
    const withVisible = renderLedger(ledger, { ...options, visible }).text;
    for (const name of shownNames) expect(withVisible).not.toMatch(new RegExp(`\\b${name}\\b`));
    expect(withVisible).not.toContain("User said");
    // The room goes to older names the request would not hold otherwise.
    const namesOf = (text: string) => new Set(text.match(/symbol_number_\d+/g));
    const gained = [...namesOf(withVisible)].filter((name) => !namesOf(without).has(name));
    expect(gained.length).toBeGreaterThan(0);
  });

  it("finds a user note in the pinned task however its lines were broken", () => {
    const task = "Fix the parser:\n  it drops\n\tcomments in src/lexer.py.";
    const ledger = updateLedger({ messages: [{ message: { role: "user", content: task }, step: 0 }] });
    const visible = { names: new Set<string>(), text: task };
    expect(renderLedger(ledger, { budgetTokens: 1_000, tokenizer }).text).toContain("User said");
    expect(renderLedger(ledger, { budgetTokens: 1_000, tokenizer, visible }).text).not.toContain("User said");
  });

  it("writes the members of one owner once, and keeps names that read as files whole", () => {
    expect(ownerOf("self.remote_field.get_field")).toEqual({
      owner: "self.remote_field",
      member: "get_field",
    });
    // A last part that could be a file's extension keeps the form an agent types.
    for (const name of ["setup.py", "cursor.execute", "os.path", "load_config"])
      expect(ownerOf(name), name).toBeNull();
    const names = [
      "self.model._meta.get_field",
      "self.model._meta.unique_together",
      "self.to_fields",
      "setup.py",
    ];
    const sightings = names.map((name, index) => ({ names: [name], step: index, used: true }));
    const ledger = { ...updateLedger({ messages: [] }), names: foldNames([], sightings) };
    const line =
      renderLedger(ledger, { budgetTokens: 1_000, tokenizer })
        .text.split("\n")
        .find((text) => text.startsWith("Names in use")) ?? "";
    expect(line).toContain("self.model._meta.{");
    expect(line.match(/self\.model\._meta/g)?.length).toBe(1);
    for (const member of ["get_field", "unique_together"]) expect(line).toContain(member);
    expect(line).toContain("self.to_fields");
    expect(line).toContain("setup.py");
  });
});
