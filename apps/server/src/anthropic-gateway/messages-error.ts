import { contextExhaustedBody, InvalidMessagesRequest, messagesErrorBody } from "@longrun/openai-compat";
import { LongrunError, statusOf } from "@longrun/protocol";
import { ClientTurnError } from "@longrun/runtime";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { describeIssues } from "../http-error.ts";

/** The status, Anthropic-shaped body and Retry-After of any failure of a Messages request. */
export function messagesErrorOf(error: unknown): {
  status: number;
  body: ReturnType<typeof messagesErrorBody>;
  retryAfterMs?: number;
} {
  if (ClientTurnError.isInstance(error)) {
    const message =
      error.code === "context_exhausted" ? contextExhaustedBody(error.message).error.message : error.message;
    return {
      status: error.status,
      body: messagesErrorBody(error.status, message),
      ...(error.options.retryAfterMs ? { retryAfterMs: error.options.retryAfterMs } : {}),
    };
  }
  if (InvalidMessagesRequest.isInstance(error))
    return { status: 400, body: messagesErrorBody(400, error.message) };
  if (error instanceof z.ZodError)
    return { status: 400, body: messagesErrorBody(400, describeIssues(error)) };
  if (error instanceof HTTPException && error.status < 500)
    return { status: error.status, body: messagesErrorBody(error.status, error.message) };
  if (error instanceof SyntaxError)
    return { status: 400, body: messagesErrorBody(400, `invalid JSON body: ${error.message}`) };
  if (LongrunError.isInstance(error)) {
    const status = statusOf(error.code);
    return {
      status,
      body: messagesErrorBody(status, error.message),
      ...(error.retryAfterMs ? { retryAfterMs: error.retryAfterMs } : {}),
    };
  }
  console.error("[anthropic-gateway] unexpected error", error);
  return { status: 500, body: messagesErrorBody(500, "internal error") };
}

/** A failure of a Messages request as an HTTP response in Anthropic's error shape. */
export function messagesErrorResponse(error: unknown, context: Context): Response {
  const { status, body, retryAfterMs } = messagesErrorOf(error);
  if (retryAfterMs) context.header("retry-after", String(Math.ceil(retryAfterMs / 1000)));
  return context.json(body, status as ContentfulStatusCode);
}

/** Paths answered in Anthropic's shape, authentication failures included. */
export function isMessagesPath(path: string): boolean {
  return path === "/v1/messages" || path.startsWith("/v1/messages/");
}
