import { randomUUID } from "node:crypto";
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import {
  type AppliedContextEdit,
  CountTokensRequestBody,
  createMessagesStreamEncoder,
  MessagesRequestBody,
  parseMessagesRequest,
} from "@longrun/openai-compat";
import { type ClientTurnOptions, type ClientTurnResult, countClientTurnTokens } from "@longrun/runtime";
import { z } from "zod";
import type { AuthEnv } from "../auth.ts";
import { BEARER } from "../contract.ts";
import { collectAnswer, type StreamFormat, streamAnswer } from "../openai-gateway/answer-stream.ts";
import { requestTurn } from "../openai-gateway/request-turn.ts";
import type { ServerDeps } from "../server-deps.ts";
import { messagesErrorOf, messagesErrorResponse } from "./messages-error.ts";

const sseEvent = (frame: { type: string }) => `event: ${frame.type}\ndata: ${JSON.stringify(frame)}\n\n`;

/** An error in Anthropic's shape. */
const AnthropicError = z
  .object({ type: z.literal("error"), error: z.object({ type: z.string(), message: z.string() }) })
  .meta({ id: "AnthropicError" });

const anthropicErrors = {
  400: "the request does not parse, breaks tool_use/tool_result adjacency, or the conversation cannot fit",
  401: "missing or invalid token (`x-api-key` or bearer)",
  404: "the upstream does not know the model",
  413: "the body is over the gateway's body limit",
  415: "a body was sent with a content type other than application/json",
  429: "the upstream model is rate limited (Retry-After says when to try again)",
  500: "an unexpected server error (logged)",
  502: "the upstream model answered with an error",
  503: "the job queue or the upstream model is unreachable",
} as const;

function errorResponses() {
  return Object.fromEntries(
    Object.entries(anthropicErrors).map(([status, when]) => [
      Number(status),
      { description: when, content: { "application/json": { schema: AnthropicError } } },
    ]),
  );
}

const messages = createRoute({
  method: "post",
  path: "/messages",
  operationId: "createMessage",
  summary:
    "Anthropic Messages through longrun (Claude Code): the history is kept as facts, the projection sent upstream fits",
  tags: ["gateway"],
  security: BEARER,
  request: { body: { required: true, content: { "application/json": { schema: MessagesRequestBody } } } },
  responses: {
    200: {
      description:
        "A message (or, with `stream: true`, its server-sent events); usage is that of the request sent upstream",
      content: {
        "application/json": { schema: z.looseObject({ id: z.string(), type: z.literal("message") }) },
        "text/event-stream": { schema: z.string() },
      },
    },
    ...errorResponses(),
  },
});

const countTokens = createRoute({
  method: "post",
  path: "/messages/count_tokens",
  operationId: "countMessageTokens",
  summary: "Input tokens of a Messages request as it stands, counted as longrun counts what it sends",
  tags: ["gateway"],
  security: BEARER,
  request: { body: { required: true, content: { "application/json": { schema: CountTokensRequestBody } } } },
  responses: {
    200: {
      description: "The count",
      content: { "application/json": { schema: z.looseObject({ input_tokens: z.number().int() }) } },
    },
    ...errorResponses(),
  },
});

/** The clear_thinking edit as the API reports it, when the request asked for it. */
function appliedEdits(edits: readonly string[], result: ClientTurnResult): AppliedContextEdit[] | undefined {
  if (edits.length === 0) return undefined;
  const cleared = result.clearedReasoning;
  if (!edits.includes("clear_thinking_20251015") || !cleared || cleared.turns === 0) return [];
  return [
    {
      type: "clear_thinking_20251015",
      cleared_thinking_turns: cleared.turns,
      cleared_input_tokens: cleared.tokens,
    },
  ];
}

/**
 * The Anthropic Messages gateway: `POST /messages` (streamed or not) and `POST /messages/count_tokens`,
 * behind the same tokens and tenants as the rest of `/v1` (`x-api-key` accepted). A conversation is a
 * gateway thread like a Chat or Responses one: same facts, projection, compaction and ledger.
 */
export function anthropicGatewayRoutes(deps: ServerDeps, options: ClientTurnOptions) {
  const app = new OpenAPIHono<AuthEnv>({
    defaultHook: (result, context) => {
      if (!result.success) return messagesErrorResponse(result.error, context);
    },
  });
  app.onError((error, context) => messagesErrorResponse(error, context));

  app.openapi(messages, async (context) => {
    const { turn, options: asked } = parseMessagesRequest(context.req.valid("json"));
    const { run, abort } = requestTurn(deps, options, context, turn);
    const identity = {
      id: `msg_${randomUUID().replaceAll("-", "")}`,
      model: turn.model,
      thinking: asked.thinking,
    };
    const extrasOf = (result: ClientTurnResult) => {
      const edits = appliedEdits(asked.contextEdits, result);
      return {
        ...(asked.cacheControl && result.promptCache ? { cache: result.promptCache } : {}),
        ...(edits ? { appliedEdits: edits } : {}),
      };
    };
    const encoder = createMessagesStreamEncoder(identity);
    if (!turn.stream) {
      const { result, events } = await collectAnswer(run);
      encoder.start();
      for (const event of events) encoder.event(event);
      return context.json(encoder.body(result.answer, extrasOf(result)) as object) as never;
    }
    const format: StreamFormat = {
      start: () => encoder.start().map(sseEvent),
      event: (event) => encoder.event(event).map(sseEvent),
      finish: (result) => encoder.finish(result.answer, extrasOf(result)).map(sseEvent),
      fail: (type, message) => [
        `event: error\ndata: ${JSON.stringify({ type: "error", error: { type, message } })}\n\n`,
      ],
    };
    return (await streamAnswer(run, format, abort, (error) => {
      const { body } = messagesErrorOf(error);
      return { code: body.error.type, message: body.error.message };
    })) as never;
  });

  app.openapi(countTokens, async (context) => {
    const body = context.req.valid("json");
    const { turn, options: asked } = parseMessagesRequest(body);
    const inputTokens = await countClientTurnTokens(turn, deps.runtime.tokenizer, deps.runtime.counter);
    return context.json({
      input_tokens: inputTokens,
      ...(asked.contextEdits.length > 0
        ? { context_management: { original_input_tokens: inputTokens } }
        : {}),
    });
  });

  return app;
}
