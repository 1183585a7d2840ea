import { compileLinear, type LinearRegex } from "./linear-regex.ts";

const MAGIC = /[*?[{\\]/;

function escapeRegex(char: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(char) ? `\\${char}` : char;
}

// Index of the brace closing the one at `start`, or -1; nested braces and escapes are skipped.
function closingBrace(pattern: string, start: number): number {
  let depth = 0;
  for (let index = start; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === "\\") index++;
    else if (char === "{") depth++;
    else if (char === "}" && --depth === 0) return index;
  }
  return -1;
}

// Split a brace body at its top-level commas.
function splitAlternatives(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (let index = 0; index < body.length; index++) {
    const char = body[index] as string;
    if (char === "\\") {
      current += char + (body[index + 1] ?? "");
      index++;
      continue;
    }
    if (char === "{") depth++;
    if (char === "}") depth--;
    if (char === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += char;
  }
  parts.push(current);
  return parts;
}

function toRegexSource(pattern: string): string {
  let source = "";
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index] as string;
    if (char === "*") {
      if (pattern[index + 1] === "*") {
        const atSegmentStart = index === 0 || pattern[index - 1] === "/";
        const next = pattern[index + 2];
        if (atSegmentStart && next === "/") {
          source += "(?:[^/]*/)*"; // "**/": zero or more whole directories
          index += 2;
          continue;
        }
        if (atSegmentStart && next === undefined) {
          source += ".*"; // trailing "**": everything below
          index += 1;
          continue;
        }
        index += 1; // "**" inside a segment acts like "*"
      }
      source += "[^/]*";
    } else if (char === "?") {
      source += "[^/]";
    } else if (char === "\\") {
      const next = pattern[index + 1];
      if (next !== undefined) {
        source += escapeRegex(next);
        index++;
      } else source += "\\\\";
    } else if (char === "[") {
      const end = pattern.indexOf("]", index + 2);
      if (end === -1) {
        source += "\\[";
        continue;
      }
      let body = pattern.slice(index + 1, end);
      const negated = body.startsWith("!") || body.startsWith("^");
      if (negated) body = body.slice(1);
      source += `[${negated ? "^" : ""}${body.replace(/[\\\]^]/g, (c) => `\\${c}`)}]`;
      index = end;
    } else if (char === "{") {
      const end = closingBrace(pattern, index);
      if (end === -1) {
        source += "\\{";
        continue;
      }
      const alternatives = splitAlternatives(pattern.slice(index + 1, end)).map(toRegexSource);
      source += `(?:${alternatives.join("|")})`;
      index = end;
    } else {
      source += escapeRegex(char);
    }
  }
  return source;
}

/**
 * Compile a glob (`**`, `*`, `?`, `[abc]`, `{a,b}`) into a matcher over workspace-relative posix
 * paths. It runs on RE2: as a backtracking RegExp, "*a*a*a*a*a*a*a*a*b" against a long name of "a"s
 * takes exponential time.
 */
export function compileGlob(pattern: string): LinearRegex {
  return compileLinear(`^${toRegexSource(pattern.replace(/^\.\//, ""))}$`, "glob");
}

/** True when `path` matches the glob pattern. */
export function matchGlob(pattern: string, path: string): boolean {
  return compileGlob(pattern).test(path);
}

/** The leading directory segments of a pattern that contain no glob syntax ("" when none). */
export function literalPrefix(pattern: string): string {
  const segments = pattern.replace(/^\.\//, "").split("/");
  const literal: string[] = [];
  // The last segment names files, so it never becomes part of the directory to walk from.
  for (const segment of segments.slice(0, -1)) {
    if (MAGIC.test(segment)) break;
    literal.push(segment);
  }
  return literal.join("/");
}
