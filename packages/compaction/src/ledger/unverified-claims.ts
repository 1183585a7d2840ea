import type { Ledger } from "@longrun/protocol";
import { LEDGER_LIMITS } from "./ledger-limits.ts";

/**
 * Completions the summarizer states that the ledger cannot cite, marked in place so the next model
 * call sees the difference between what the log shows and what the summary says. Conservative: a
 * false mark misleads more than a missing one, so only two claims are checked — a file changed
 * ("fixed x.py", "created tests/t.py", "`a.ts` was updated") and tests passing — and only where the
 * ledger could have seen the evidence.
 */

const CHANGE_VERBS =
  "fixed|created|wrote|edited|modified|updated|changed|patched|rewrote|refactored|added|implemented|deleted|removed";
/** Extensions of the files agents change (a word like `Node.js` or `e.g.` is not a file claim). */
const EXTENSIONS =
  "py|pyi|ts|tsx|js|jsx|mjs|cjs|json|md|mdx|txt|ya?ml|toml|cfg|ini|rs|go|java|kt|c|h|cc|cpp|hpp|rb|php|cs|swift|sh|html|css|scss|sql|xml|lock|env|pl|ex|exs|vue|svelte|dart|scala|lua|gradle|conf|rst|ipynb|proto|tf|csv";
/** A file path as summaries write it, optionally in backticks. */
const PATH = `\`?((?:[\\w.@-]+/)*[\\w@-][\\w.@-]*\\.(?:${EXTENSIONS}))\`?(?![\\w/])`;
/** Words after which a path is a source or a reference, not what the verb changed. */
const REFERENCE_WORDS = "from|based|using|like|per|according|by|after|via|following|than|as|see|similar";
/**
 * `fixed … x.py`: the verb, then up to six words of the same clause (none that makes the path a
 * reference: "created a script based on docs/x.md"), then the path.
 */
const ACTIVE_CHANGE = new RegExp(
  `\\b(?:${CHANGE_VERBS})\\b((?:\\s+(?!(?:${REFERENCE_WORDS})\\b)[^\\s.;:!?,]+){0,6}?)\\s+${PATH}`,
  "gi",
);
/** `Next.js`, `Vue.js`: a product's name, not a file. */
const PRODUCT_NAME = /^[A-Z][a-z]+\.js$/;
/** `x.py was updated`, `` `a.ts` has been fixed ``. */
const PASSIVE_CHANGE = new RegExp(
  `${PATH}\\s+(?:was|were|has been|have been|is now|are now)\\s+(?:${CHANGE_VERBS})\\b`,
  "gi",
);
/** `all tests pass`, `the unit tests now pass`, `tests are passing`, `tests succeeded`. */
const TESTS_PASS =
  /\b(?:(?:all|the)\s+)*(?:[\w-]+\s+)?tests?\s+(?:now\s+|all\s+)?(?:pass(?:es|ed)?|are passing|succeed(?:s|ed)?|(?:are|were) (?:all )?green)\b|\ball (?:the )?tests (?:are )?passing\b/gi;
/** Words before a claim that make it not one: negation, intent, condition. */
const NOT_A_CLAIM =
  /\b(?:not|never|no|n't|to|will|would|should|must|need|needs|needed|trying|tried|attempt\w*|plan\w*|want\w*|going|can|could|might|may|if|whether|unless|until|before|once|ensure|make|so that|expect\w*|verify|check)\s+(?:\w+\s+){0,2}$/i;
/** Commands that run a test suite. */
const TEST_COMMAND =
  /\b(?:pytest|py\.test|unittest|tox|nox|jest|vitest|mocha|ava|phpunit|rspec|ctest|runtests\.py|(?:go|cargo|dotnet|bun|deno|mvn|gradle|mix|swift)\s+test|(?:npm|yarn|pnpm)\s+(?:run\s+)?test|make\s+(?:test|check))\b/;

const MARK = "[unverified:";

interface Mark {
  at: number;
  note: string;
}

function basename(path: string): string {
  return path.replace(/\/+$/, "").split("/").pop() ?? path;
}

/** The text just before `at`, back to the start of its sentence. */
function clauseBefore(text: string, at: number): string {
  const before = text.slice(Math.max(0, at - 80), at);
  const start = Math.max(before.lastIndexOf(". "), before.lastIndexOf("\n"), before.lastIndexOf("; "));
  return before.slice(start + 1);
}

function fileMarks(text: string, ledger: Ledger): Mark[] {
  // A ledger that saw no change at all may not know this agent's editing tools: say nothing.
  if (ledger.changedFiles.length === 0) return [];
  const changed = new Set(ledger.changedFiles.map((file) => basename(file.path)));
  const marks: Mark[] = [];
  const claim = (path: string, start: number, end: number) => {
    if (changed.has(basename(path)) || PRODUCT_NAME.test(path)) return;
    if (NOT_A_CLAIM.test(clauseBefore(text, start))) return;
    if (
      text
        .slice(end, end + 20)
        .trimStart()
        .startsWith(MARK)
    )
      return;
    marks.push({ at: end, note: `${MARK} the log shows no change to ${path}]` });
  };
  for (const match of text.matchAll(ACTIVE_CHANGE)) {
    const words = match[1] ?? "";
    if (/\b(?:not|never|no)\b/i.test(words)) continue;
    claim(match[2] as string, match.index, match.index + match[0].length);
  }
  for (const match of text.matchAll(PASSIVE_CHANGE)) {
    claim(match[1] as string, match.index, match.index + match[0].length);
  }
  return marks;
}

/** Why the ledger cannot cite passing tests, or null when it can (or cannot tell). */
function testsUncited(ledger: Ledger): string | null {
  const runs = ledger.commands.filter((command) => TEST_COMMAND.test(command.command));
  const last = runs[runs.length - 1];
  if (last === undefined) {
    // Older commands fell off a full list: a passing run may be among them.
    return ledger.commands.length >= LEDGER_LIMITS.commands ? null : "no test run in the log";
  }
  const outcome = last.outcome ?? (last.exitCode === 0 ? "ok" : "failed");
  if (outcome === "ok") return null;
  const step = last.step === null ? "" : ` #${last.step}`;
  return outcome === "failed"
    ? `the last test run${step} failed`
    : `the last test run${step} shows no outcome`;
}

function testMarks(text: string, ledger: Ledger): Mark[] {
  const marks: Mark[] = [];
  for (const match of text.matchAll(TESTS_PASS)) {
    const end = match.index + match[0].length;
    if (NOT_A_CLAIM.test(clauseBefore(text, match.index))) continue;
    if (
      text
        .slice(end, end + 20)
        .trimStart()
        .startsWith(MARK)
    )
      continue;
    const why = testsUncited(ledger);
    if (why !== null) marks.push({ at: end, note: `${MARK} ${why}]` });
  }
  return marks;
}

/**
 * The summarizer's text with `[unverified: …]` after each completion it states that the ledger
 * cannot cite: a file the ledger does not show as changed, tests passing without a passing test
 * run. Unchanged when every claim is cited, and for text already marked.
 */
export function markUnverifiedClaims(text: string, ledger: Ledger): string {
  const marks = [...fileMarks(text, ledger), ...testMarks(text, ledger)].sort((a, b) => b.at - a.at);
  let marked = text;
  let last = Number.POSITIVE_INFINITY;
  for (const mark of marks) {
    if (mark.at === last) continue;
    marked = `${marked.slice(0, mark.at)} ${mark.note}${marked.slice(mark.at)}`;
    last = mark.at;
  }
  return marked;
}
