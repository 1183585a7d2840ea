import { randomUUID } from "node:crypto";
import {
  apiErrorBody,
  ChatRequestBody,
  type ClientTurn,
  chatCompletionBody,
  contextExhaustedBody,
  createChatStreamEncoder,
  createResponsesStreamEncoder,
  modelsList,
  parseChatRequest,
  parseResponsesRequest,
  ResponsesRequestBody,
  responseBody,
} from "@longrun/openai-compat";
import { GatewayError, type GatewayOptions, runGatewayTurn, type TurnSink } from "@longrun/runtime";
import type { Context } from "hono";
import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import type { AuthEnv } from "../auth.ts";
import { describeIssues } from "../http-error.ts";
import type { ServerDeps } from "../server-deps.ts";
import { resolveWorkspace } from "../workspace.ts";
import { collectAnswer, type StreamFormat, streamAnswer } from "./answer-stream.ts";
import { clientLabel } from "./client-label.ts";

/** An error body in the OpenAI shape, with the status and Retry-After it goes with. */
function errorOf(error: unknown): { status: number; body: unknown; retryAfterMs?: number } {
  if (GatewayError.isInstance(error)) {
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

/**
 * The OpenAI-compatible gateway: `POST /chat/completions`, `POST /responses`, `GET /models`, behind
 * the same bearer tokens and tenants as the rest of `/v1`. Each client conversation is a thread;
 * longrun keeps its facts, compacts its projection and calls the upstream model with it.
 */
export function openAiGatewayRoutes(deps: ServerDeps) {
  const app = new Hono<AuthEnv>();
  const options: GatewayOptions = {
    // A gateway thread's workspace is always a new folder under the data dir (never a named one, so the
    // tenant checks of named workspaces do not apply): longrun runs none of the client's tools anyway.
    workspaceFor: async (threadId) =>
      (
        await resolveWorkspace(undefined, {
          dataDir: deps.dataDir,
          roots: deps.workspaceRoots,
          threadId,
          tenantId: "",
          store: deps.store,
        })
      ).dir,
    live: deps.live,
    ...(deps.defaults.maxInputTokens ? { defaultMaxInputTokens: deps.defaults.maxInputTokens } : {}),
  };

  const answer = async (context: Context<AuthEnv>, turn: ClientTurn): Promise<Response> => {
    const abort = new AbortController();
    context.req.raw.signal.addEventListener("abort", () => abort.abort(new Error("client went away")), {
      once: true,
    });
    const run = (sink: TurnSink) =>
      runGatewayTurn(
        deps.runtime,
        options,
        {
          tenantId: context.get("tenantId"),
          turn,
          header: (name) => context.req.header(name),
          signal: abort.signal,
          client: clientLabel(context.req.header("user-agent")),
        },
        sink,
      );
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
          finish: (done) => [...encoder.finish(done).map(sse), "data: [DONE]\n\n"],
          fail: (code, message) => [sse(apiErrorBody(code, message, "server_error"))],
        };
        return await streamAnswer(run, format, () => abort.abort(), describeForStream);
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
        finish: (done) => encoder.finish(done).map(sseEvent),
        fail: (code, message) => encoder.fail(code, message).map(sseEvent),
      };
      return await streamAnswer(run, format, () => abort.abort(), describeForStream);
    } catch (error) {
      return errorResponse(context, error);
    }
  };

  app.post("/chat/completions", async (context) => {
    const parsed = ChatRequestBody.safeParse(await context.req.json());
    if (!parsed.success) return invalid(context, parsed.error);
    return answer(context, parseChatRequest(parsed.data));
  });

  app.post("/responses", async (context) => {
    const parsed = ResponsesRequestBody.safeParse(await context.req.json());
    if (!parsed.success) return invalid(context, parsed.error);
    if (parsed.data.previous_response_id) {
      return context.json(
        apiErrorBody(
          "unsupported_parameter",
          "previous_response_id is not supported: longrun keeps the conversation, send the full input each time",
        ),
        400,
      );
    }
    if ((parsed.data as { background?: unknown }).background === true) {
      return context.json(
        apiErrorBody("unsupported_parameter", "background responses are not supported"),
        400,
      );
    }
    return answer(context, parseResponsesRequest(parsed.data));
  });

  app.get("/models", async (context) => {
    const ids = new Set<string>([deps.defaults.model]);
    try {
      const upstream = await deps.runtime.model.models.list({ timeout: 5_000 });
      for (const model of upstream.data) ids.add(model.id);
    } catch {
      // The upstream may not list models; the configured default is still offered.
    }
    return context.json(
      modelsList([...ids].map((id) => ({ id, object: "model" as const, created: 0, owned_by: "longrun" }))),
    );
  });

  return app;
}
