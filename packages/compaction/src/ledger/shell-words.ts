/**
 * Shell text split the way the ledger needs it: heredoc bodies apart from the command line, and
 * each segment's words apart from its redirection operators.
 */

/** A command line with its heredoc bodies cut out (they are data, not commands). */
export interface HeredocSplit {
  command: string;
  bodies: string[];
}

const HEREDOC = /<<(-?)\s*(?:'([^'\n]+)'|"([^"\n]+)"|\\?([A-Za-z_][\w-]*))/g;

/** Removes heredoc bodies (`<<EOF … EOF`, `<<-'X' … X`) from a command line; here-strings stay. */
export function splitHeredocs(command: string): HeredocSplit {
  const lines = command.split("\n");
  const kept: string[] = [];
  const bodies: string[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] as string;
    kept.push(line);
    index++;
    const pending: { delimiter: string; strip: boolean }[] = [];
    for (const match of line.replace(/<<</g, "   ").matchAll(HEREDOC)) {
      const delimiter = match[2] ?? match[3] ?? match[4];
      if (delimiter) pending.push({ delimiter, strip: match[1] === "-" });
    }
    for (const { delimiter, strip } of pending) {
      const body: string[] = [];
      while (index < lines.length) {
        const bodyLine = lines[index] as string;
        index++;
        if ((strip ? bodyLine.replace(/^\t+/, "") : bodyLine).trim() === delimiter) break;
        body.push(bodyLine);
      }
      bodies.push(body.join("\n"));
    }
  }
  return { command: kept.join("\n"), bodies };
}

/** One token of a segment: a word (quotes removed) or a redirection operator. */
export type ShellToken = { word: string } | { operator: string };

/** Splits one segment (no `;`, `&&`, `|`) into words and redirection operators (`>`, `2>>`, `<<`…). */
export function tokenize(segment: string): ShellToken[] {
  const tokens: ShellToken[] = [];
  let current = "";
  let inWord = false;
  const flush = () => {
    if (inWord) tokens.push({ word: current });
    current = "";
    inWord = false;
  };
  for (let index = 0; index < segment.length; index++) {
    const char = segment[index] as string;
    if (char === "'" || char === '"') {
      const end = findQuoteEnd(segment, index);
      const inner = segment.slice(index + 1, end);
      current += char === '"' ? inner.replace(/\\(["\\$`])/g, "$1") : inner;
      inWord = true;
      index = end;
      continue;
    }
    if (char === "\\") {
      current += segment[index + 1] ?? "";
      inWord = true;
      index++;
      continue;
    }
    if (/\s/.test(char)) {
      flush();
      continue;
    }
    if (char === ">" || char === "<") {
      // A lone fd number or `&` right before the operator belongs to it (2>, &>).
      let operator = char;
      if (inWord && (/^\d$/.test(current) || current === "&")) {
        operator = current + char;
        current = "";
        inWord = false;
      } else flush();
      while (segment[index + 1] !== undefined && /[<>&|-]/.test(segment[index + 1] as string)) {
        const next = segment[index + 1] as string;
        if (next === "-" && !operator.endsWith("<<")) break;
        if (next === "|" && operator !== ">") break;
        operator += next;
        index++;
        if (next === "&" || next === "-" || next === "|") break;
      }
      tokens.push({ operator });
      continue;
    }
    current += char;
    inWord = true;
  }
  flush();
  return tokens;
}

function findQuoteEnd(text: string, start: number): number {
  const quote = text[start];
  for (let index = start + 1; index < text.length; index++) {
    if (quote === '"' && text[index] === "\\") {
      index++;
      continue;
    }
    if (text[index] === quote) return index;
  }
  return text.length;
}

/** A segment's plain arguments and its output redirections. */
export interface SegmentParts {
  argv: string[];
  /** Files written by `>`/`>>`/`&>` (not /dev/null, not fd duplication). */
  outputs: { path: string; append: boolean }[];
}

/** argv without redirections, and where output is redirected to. */
export function segmentParts(segment: string): SegmentParts {
  const tokens = tokenize(segment);
  const argv: string[] = [];
  const outputs: SegmentParts["outputs"] = [];
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index] as ShellToken;
    if ("word" in token) {
      argv.push(token.word);
      continue;
    }
    const next = tokens[index + 1];
    const target = next && "word" in next ? next.word : null;
    if (target !== null) index++;
    const { operator } = token;
    if (!operator.includes(">") || operator.endsWith("&") || target === null) continue;
    if (target.startsWith("&") || target === "/dev/null" || target.startsWith("/dev/std")) continue;
    outputs.push({ path: target, append: operator.includes(">>") });
  }
  return { argv, outputs };
}
