import { LongrunError } from "@longrun/protocol";
import type { Context } from "hono";
import type { z } from "zod";
import { describeIssues } from "./http-error.ts";

/** Parses a JSON body against a schema; a bad body is a 400 that names the fields. */
export async function readBody<Schema extends z.ZodType>(
  context: Context,
  schema: Schema,
): Promise<z.output<Schema>> {
  const text = await context.req.text();
  let json: unknown = {};
  if (text.trim().length > 0) {
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new LongrunError("bad_request", `invalid JSON body: ${(error as Error).message}`);
    }
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new LongrunError("bad_request", describeIssues(parsed.error), parsed.error.issues);
  return parsed.data;
}

/** An optional non-negative integer query parameter. */
export function intQuery(context: Context, name: string, fallback?: number): number | undefined {
  const raw = context.req.query(name);
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new LongrunError("bad_request", `${name} must be an integer`);
  return value;
}
