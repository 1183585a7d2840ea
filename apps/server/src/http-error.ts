import { codeOfStatus, type ErrorBody, LongrunError, statusOf } from "@longrun/protocol";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";

/** The one place errors become HTTP responses: `{error: {code, message}}` with the right status. */
export function errorResponse(error: unknown, context: Context): Response {
  if (LongrunError.isInstance(error)) {
    const body: ErrorBody = { error: { code: error.code, message: error.message, details: error.details } };
    if (error.retryAfterMs !== undefined) {
      context.header("retry-after", String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))));
    }
    return context.json(body, statusOf(error.code) as ContentfulStatusCode);
  }
  if (error instanceof z.ZodError) return errorResponse(validationError(error, "json"), context);
  if (error instanceof HTTPException) return errorResponse(fromHttpException(error), context);
  if (error instanceof SyntaxError) {
    return errorResponse(new LongrunError("bad_request", `invalid JSON body: ${error.message}`), context);
  }
  // Logged with the request's id by the request log, which reads it from here.
  context.error = error instanceof Error ? error : new Error(String(error));
  return context.json({ error: { code: "internal", message: "internal error" } }, 500);
}

/** One line per zod issue: `field: message`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`).join("; ");
}

/** Fields that carry a message for the model: too long is "too large" (413), like an over-long body. */
const MESSAGE_FIELDS = new Set(["content", "task", "brief"]);

/** A failed validation of one part of a request: a 400 naming each field (413 for an over-long message). */
export function validationError(error: z.ZodError, target: string): LongrunError {
  const where = target === "query" ? "query " : target === "param" ? "path " : "";
  const oversized = error.issues.some(
    (issue) =>
      issue.code === "too_big" && issue.origin === "string" && MESSAGE_FIELDS.has(String(issue.path.at(-1))),
  );
  const message = `${where}${describeIssues(error)}`;
  return new LongrunError(oversized ? "payload_too_large" : "bad_request", message, error.issues);
}

/** hono's own refusals (malformed JSON, wrong content type) in the API's error shape. */
function fromHttpException(error: HTTPException): LongrunError {
  const code = codeOfStatus(error.status) ?? "bad_request";
  if (code === "bad_request" && /json/i.test(error.message))
    return new LongrunError(code, `invalid JSON body: ${error.message}`);
  if (code === "unsupported_media_type")
    return new LongrunError(code, "send the request body as application/json");
  return new LongrunError(code, error.message || code);
}
