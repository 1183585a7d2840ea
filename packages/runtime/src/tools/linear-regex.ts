import { RE2JS, RE2JSException } from "re2js";
import { ToolError } from "./types.ts";

/** A compiled pattern whose matching time is linear in the input (RE2), whatever the pattern. */
export interface LinearRegex {
  /** True when the pattern matches anywhere in `input`. */
  test(input: string): boolean;
}

/**
 * Compiles `source` with RE2 (re2js, pure JavaScript). A backtracking engine takes exponential time
 * on patterns like `(a+)+$` against `'a'.repeat(40) + 'b'`, which hung the server; RE2 cannot, and
 * so refuses what needs backtracking: backreferences and lookaround. `what` names the pattern in
 * the error the model sees.
 */
export function compileLinear(source: string, what = "pattern"): LinearRegex {
  try {
    const regex = RE2JS.compile(source);
    return { test: (input) => regex.test(input) };
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    throw new ToolError(
      "invalid_argument",
      `${what} is not a valid regular expression (RE2 syntax: no backreferences like \\1, no lookaround ` +
        `like (?=...) or (?<!...); write \\x{e9} for \\u00e9): ${error.message}`,
    );
  }
}
