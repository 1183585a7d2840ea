import { type ErrorBody, LongrunError, statusOf } from "@longrun/protocol";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";

/** The one place errors become HTTP responses: `{error: {code, message}}` with the right status. */
export function errorResponse(error: unknown, context: Context): Response {
  if (LongrunError.isInstance(error)) {
    const body: ErrorBody = { error: { code: error.code, message: error.message, details: error.details } };
    return context.json(body, statusOf(error.code) as ContentfulStatusCode);
  }
  if (error instanceof z.ZodError) {
    return context.json(
      { error: { code: "bad_request", message: describeIssues(error), details: error.issues } },
      400,
    );
  }
  if (error instanceof SyntaxError) {
    return context.json(
      { error: { code: "bad_request", message: `invalid JSON body: ${error.message}` } },
      400,
    );
  }
  console.error("[server] unexpected error", error);
  return context.json({ error: { code: "internal", message: "internal error" } }, 500);
}

/** One line per zod issue: `field: message`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`).join("; ");
}
