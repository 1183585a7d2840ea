import { delimiter, resolve } from "node:path";
import { z } from "zod";

// Value schemas for environment variables. Messages never repeat the variable's name: the loader puts
// it in front ("PORT: must be a whole number from 0 to 65535, got "eighty"").

/** A whole number within bounds. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
  return z.string().transform((text, context) => {
    const value = Number(text.trim());
    if (!/^-?\d+$/.test(text.trim()) || value < min || value > max) {
      context.addIssue({ code: "custom", message: `must be a whole number ${range}, got "${text}"` });
      return z.NEVER;
    }
    return value;
  });
}

/** A URL whose scheme is one of `schemes` (`redis:`, `http:` …). */
export function url(schemes: readonly string[]) {
  return z
    .string()
    .trim()
    .refine((text) => URL.canParse(text), { error: (issue) => `must be a URL, got "${issue.input}"` })
    .refine((text) => !URL.canParse(text) || schemes.includes(new URL(text).protocol), {
      error: (issue) => `must start with ${schemes.join(" or ")}//, got "${issue.input}"`,
    })
    .transform((text) => text.replace(/\/+$/, ""));
}

/** A positive number (fractions allowed). */
export function positiveNumber() {
  return z.string().transform((text, context) => {
    const value = Number(text.trim());
    if (text.trim() === "" || !Number.isFinite(value) || value <= 0) {
      context.addIssue({ code: "custom", message: `must be a number above 0, got "${text}"` });
      return z.NEVER;
    }
    return value;
  });
}

/** A JSON value that `schema` accepts. */
export function json<Schema extends z.ZodType>(schema: Schema) {
  return z.string().transform((text, context): z.output<Schema> => {
    let value: unknown;
    try {
      value = JSON.parse(text);
      // Not JSON: said to the user as this variable's issue (the parser's own message adds nothing).
    } catch {
      context.addIssue({ code: "custom", message: `must be JSON, got "${text.slice(0, 80)}"` });
      return z.NEVER;
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const problem = parsed.error.issues
        .map((issue) => `${issue.path.join(".") || "(value)"}: ${issue.message}`)
        .join("; ");
      context.addIssue({ code: "custom", message: problem });
      return z.NEVER;
    }
    return parsed.data;
  });
}

/** One of a few words (case-insensitive). */
export function oneOf<const Word extends string>(words: readonly Word[]) {
  return z.string().transform((text, context) => {
    const word = text.trim().toLowerCase();
    if (!(words as readonly string[]).includes(word)) {
      context.addIssue({ code: "custom", message: `must be one of ${words.join(", ")}, got "${text}"` });
      return z.NEVER;
    }
    return word as Word;
  });
}

/** A non-empty string. */
export function text(minLength = 1) {
  return z
    .string()
    .refine((value) => value.length >= minLength, { error: `must be at least ${minLength} characters` });
}

/** A folder, resolved against the working directory. */
export function folder() {
  return z.string().transform((value) => resolve(value.trim()));
}

/** A list of folders separated by the platform's path delimiter or commas. */
export function folderList() {
  return z.string().transform((value) =>
    value
      .split(delimiter)
      .flatMap((part) => part.split(","))
      .map((part) => part.trim())
      .filter((part) => part.length > 0)
      .map((part) => resolve(part)),
  );
}

/** A comma-separated list of names (empty entries dropped). */
export function nameList() {
  return z.string().transform((value) =>
    value
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part.length > 0),
  );
}

/** An IANA time zone this Node knows. */
export function timeZone() {
  return z.string().refine(
    (zone) => {
      try {
        new Intl.DateTimeFormat("en-US", { timeZone: zone });
        return true;
      } catch {
        // An unknown zone: the loader reports the value as invalid.
        return false;
      }
    },
    { error: (issue) => `unknown time zone "${issue.input}"` },
  );
}

/** The machine's time zone, UTC when Node cannot tell. */
export function systemTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone ?? "UTC";
}
