import { argumentText, WRITTEN_ESCAPE } from "@longrun/compaction";
import { type ChatMessage, contentText } from "@longrun/protocol";

/** Runs of characters an identifier or path is made of; everything else separates them. */
const CANDIDATE = /[\w./~@+-]+/g;
const EDGE = /^[./~@+-]+|[./~@+-]+$/g;
/** A file name: something, a dot, an extension of 1–8 letters and digits starting with a letter. */
const FILE_NAME = /^[\w@+~-][\w.@+~-]*\.[A-Za-z][A-Za-z0-9]{0,7}$/;
const WORD = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MIN_LENGTH = 4;

/**
 * A code symbol, not an English word: snake_case (an underscore), camelCase or PascalCase (a capital
 * after the first character, and a lower-case letter somewhere, so ALLCAPS words do not count).
 */
function isSymbol(word: string): boolean {
  if (word.length < MIN_LENGTH || !WORD.test(word) || !/[A-Za-z]/.test(word)) return false;
  if (word.includes("_")) return true;
  return /[A-Z]/.test(word.slice(1)) && /[a-z]/.test(word);
}

/**
 * The identifiers in a text: file names and paths (a path also gives its base name) and
 * snake_case, camelCase and PascalCase symbols, each at least four characters long.
 */
export function identifiersOf(text: string, into: Set<string> = new Set()): Set<string> {
  // A written-out escape (`"\\nTotal"`) separates words: the agent did not name `nTotal`.
  for (const match of text.replace(WRITTEN_ESCAPE, " ").matchAll(CANDIDATE)) {
    const candidate = match[0].replace(EDGE, "");
    if (candidate.length < MIN_LENGTH) continue;
    const slash = candidate.lastIndexOf("/");
    const base = candidate.slice(slash + 1);
    if (FILE_NAME.test(base)) {
      if (base.length >= MIN_LENGTH) into.add(base);
      if (slash >= 0) into.add(candidate.replace(/^\.\//, ""));
    }
    for (const word of candidate.split(/[./~@+-]/)) if (isSymbol(word)) into.add(word);
  }
  return into;
}

/** The text of a message an identifier can appear in: content and tool-call arguments (not tool names). */
export function messageText(message: ChatMessage): string {
  const calls = (message.tool_calls ?? []).map((call) => argumentText(call.function.arguments));
  return [contentText(message.content), ...calls].join("\n");
}
