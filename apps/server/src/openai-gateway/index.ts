import { randomUUID } from "node:crypto";
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import {
  apiErrorBody,
  ChatRequestBody,
  type ClientTurn,
  chatCompletionBody,
  compactionBody,
  contextExhaustedBody,
  createChatStreamEncoder,
  createResponsesStreamEncoder,
  parseChatRequest,
  parseResponsesRequest,
  ResponsesRequestBody,
  responseBody,
} from "@longrun/openai-compat";
import { LongrunError, statusOf } from "@longrun/protocol";
import { ClientTurnError, type ClientTurnOptions } from "@longrun/runtime";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import type { AuthEnv } from "../auth.ts";
import { AUTH_ERRORS, BEARER, errors } from "../contract.ts";
import { describeIssues } from "../http-error.ts";
import type { ServerDeps } from "../server-deps.ts";
import { collectAnswer, type StreamFormat, streamAnswer } from "./answer-stream.ts";
import { requestTurn } from "./request-turn.ts";

/** An error body in the OpenAI shape, with the status and Retry-After it goes with. */
function errorOf(error: unknown): { status: number; body: unknown; retryAfterMs?: number } {
  if (ClientTurnError.isInstance(error)) {
    if (error.code === "context_exhausted") return { status: 400, body: contextExhaustedBody(error.message) };
    const code =
      error.code === "upstream_error" ? (error.options.upstreamCode ?? "upstream_error") : error.code;
    return {
      status: error.status,
      body: apiErrorBody(
        code,
        error.message,
        error.options.upstreamType ?? (error.status >= 500 ? "server_error" : "invalid_request_error"),
      ),
      ...(error.options.retryAfterMs ? { retryAfterMs: error.options.retryAfterMs } : {}),
    };
  }
  // The validator in front of the handler refused the body: not JSON (400), not application/json (415).
  if (error instanceof HTTPException && error.status < 500) {
    const code = error.status === 415 ? "unsupported_media_type" : "invalid_request";
    return { status: error.status, body: apiErrorBody(code, error.message) };
  }
  if (LongrunError.isInstance(error)) {
    return {
      status: statusOf(error.code),
      body: apiErrorBody(error.code, error.message),
      ...(error.retryAfterMs ? { retryAfterMs: error.retryAfterMs } : {}),
    };
  }
  console.error("[openai-gateway] unexpected error", error);
  return { status: 500, body: apiErrorBody("internal", "internal error", "server_error") };
}

function errorResponse(context: Context, error: unknown): Response {
  const { status, body, retryAfterMs } = errorOf(error);
  if (retryAfterMs) context.header("retry-after", String(Math.ceil(retryAfterMs / 1000)));
  return context.json(body as object, status as ContentfulStatusCode);
}

function describeForStream(error: unknown): { code: string; message: string } {
  const body = errorOf(error).body as { error: { code: string | null; message: string } };
  return { code: body.error.code ?? "error", message: body.error.message };
}

function invalid(context: Context, error: z.ZodError): Response {
  return context.json(apiErrorBody("invalid_request", describeIssues(error)), 400);
}

const sse = (frame: unknown) => `data: ${JSON.stringify(frame)}\n\n`;
const sseEvent = (frame: unknown) =>
  `event: ${(frame as { type: string }).type}\ndata: ${JSON.stringify(frame)}\n\n`;

/** An error in the OpenAI shape (its `code` and `message` are those of longrun's own error body). */
const OpenAiError = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string(),
      code: z.string().nullable(),
      param: z.string().nullable().optional(),
    }),
  })
  .meta({ id: "OpenAiError" });

const openAiErrors = {
  400: "the request does not parse, asks for something unsupported, or the conversation cannot fit (`context_exhausted`)",
  404: "the upstream does not know the model",
  413: "the body is over the gateway's body limit (4 MiB)",
  415: "a body was sent with a content type other than application/json",
  429: "the upstream model is rate limited (Retry-After says when to try again)",
  500: "an unexpected server error (logged)",
  502: "the upstream model answered with an error",
  503: "the job queue or the upstream model is unreachable",
} as const;

function errorResponses() {
  // The bearer check answers before the gateway does, in longrun's error shape (it has the `code` and
  // `message` OpenAI clients read); the gateway's own errors are in the OpenAI shape.
  const responses: Record<number, { description: string; content: Record<string, { schema: z.ZodType }> }> = {
    ...errors(AUTH_ERRORS),
  };
  for (const [status, when] of Object.entries(openAiErrors)) {
    responses[Number(status)] = {
      description: when,
      content: { "application/json": { schema: OpenAiError } },
    };
  }
  return responses;
}

/** A JSON answer or, with `stream: true`, server-sent events (the format of the API it answers). */
function answerResponses(description: string) {
  return {
    200: {
      description,
      content: {
        "application/json": { schema: z.looseObject({ id: z.string(), object: z.string() }) },
        "text/event-stream": { schema: z.string() },
      },
    },
    ...errorResponses(),
  };
}

const chatCompletions = createRoute({
  method: "post",
  path: "/chat/completions",
  operationId: "createChatCompletion",
  summary:
    "OpenAI Chat Completions through longrun: the history is kept as facts, the projection sent upstream fits",
  tags: ["gateway"],
  security: BEARER,
  request: { body: { required: true, content: { "application/json": { schema: ChatRequestBody } } } },
  responses: answerResponses("A chat completion (or its chunks); usage is that of the request sent upstream"),
});

const responses = createRoute({
  method: "post",
  path: "/responses",
  operationId: "createResponse",
  summary: "OpenAI Responses through longrun (sent upstream in the configured format: LONGRUN_UPSTREAM_API)",
  tags: ["gateway"],
  security: BEARER,
  request: { body: { required: true, content: { "application/json": { schema: ResponsesRequestBody } } } },
  responses: answerResponses("A response (or its events); usage is that of the request sent upstream"),
});

const responsesCompact = createRoute({
  method: "post",
  path: "/responses/compact",
  operationId: "compactResponse",
  summary:
    "Codex's remote compaction, answered from longrun's own: the replacement history is longrun's checkpoint",
  tags: ["gateway"],
  security: BEARER,
  request: { body: { required: true, content: { "application/json": { schema: ResponsesRequestBody } } } },
  responses: {
    200: {
      description:
        '`{object: "response.compaction", output: [the replacement history], usage}`; nothing is sent upstream but longrun\'s summary job',
      content: { "application/json": { schema: z.looseObject({ id: z.string(), object: z.string() }) } },
    },
    ...errorResponses(),
  },
});

/**
 * The OpenAI-compatible gateway: `POST /chat/completions`, `POST /responses` (and Codex's
 * `POST /responses/compact`), behind
 * the same bearer tokens and tenants as the rest of `/v1`. Each client conversation is a thread;
 * longrun keeps its facts, compacts its projection and calls the upstream model with it.
 */
export function openAiGatewayRoutes(deps: ServerDeps, options: ClientTurnOptions) {
  // A body that does not parse is answered in the OpenAI shape the client expects.
  const app = new OpenAPIHono<AuthEnv>({
    defaultHook: (result, context) => {
      if (!result.success) return invalid(context, result.error);
    },
  });
  app.onError((error, context) => errorResponse(context, error));
  const answer = async (context: Context<AuthEnv>, turn: ClientTurn): Promise<Response> => {
    const { run, abort } = requestTurn(deps, options, context, turn);
    const created = Math.floor(Date.now() / 1000);
    try {
      if (turn.api === "chat") {
        const identity = { id: `chatcmpl-${randomUUID()}`, model: turn.model, created };
        if (!turn.stream) {
          const { result } = await collectAnswer(run);
          return context.json(chatCompletionBody(identity, result.answer) as object);
        }
        const encoder = createChatStreamEncoder(identity, { includeUsage: turn.includeUsage });
        const format: StreamFormat = {
          start: () => encoder.start().map(sse),
          event: (event) => encoder.event(event).map(sse),
          finish: (done) => [...encoder.finish(done.answer).map(sse), "data: [DONE]\n\n"],
          fail: (code, message) => [sse(apiErrorBody(code, message, "server_error"))],
        };
        return await streamAnswer(run, format, abort, describeForStream);
      }
      const identity = {
        id: `resp_${randomUUID().replaceAll("-", "")}`,
        model: turn.model,
        createdAt: created,
      };
      if (!turn.stream) {
        const { result, events } = await collectAnswer(run);
        return context.json(responseBody(identity, turn.toolRoutes, events, result.answer) as object);
      }
      const encoder = createResponsesStreamEncoder(identity, turn.toolRoutes);
      const format: StreamFormat = {
        start: () => encoder.start().map(sseEvent),
        event: (event) => encoder.event(event).map(sseEvent),
        finish: (done) => encoder.finish(done.answer).map(sseEvent),
        fail: (code, message) => encoder.fail(code, message).map(sseEvent),
      };
      return await streamAnswer(run, format, abort, describeForStream);
    } catch (error) {
      return errorResponse(context, error);
    }
  };

  app.openapi(
    chatCompletions,
    async (context) => answer(context, parseChatRequest(context.req.valid("json"))) as never,
  );

  app.openapi(responses, async (context) => {
    const body = context.req.valid("json");
    if (body.previous_response_id) {
      return context.json(
        apiErrorBody(
          "unsupported_parameter",
          "previous_response_id is not supported: longrun keeps the conversation, send the full input each time",
        ),
        400,
      ) as never;
    }
    if ((body as { background?: unknown }).background === true) {
      return context.json(
        apiErrorBody("unsupported_parameter", "background responses are not supported"),
        400,
      ) as never;
    }
    return answer(context, parseResponsesRequest(body)) as never;
  });

  app.openapi(responsesCompact, async (context) => {
    const turn = {
      ...parseResponsesRequest(context.req.valid("json")),
      stream: false,
      compactionRequested: true,
    };
    try {
      const { result } = await collectAnswer(requestTurn(deps, options, context, turn).run);
      const identity = {
        id: `resp_${randomUUID().replaceAll("-", "")}`,
        createdAt: Math.floor(Date.now() / 1000),
      };
      return context.json(compactionBody(identity, result.answer) as object) as never;
    } catch (error) {
      return errorResponse(context, error) as never;
    }
  });

  return app;
}
