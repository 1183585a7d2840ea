import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { DEFAULT_SIM_CONFIG, type SimModelConfig } from "./config.ts";
import { errorBody, invalidRequest, SIM_ERROR_CODES } from "./errors.ts";
import { FaultCounters, parseFaultHeaders } from "./faults.ts";
import type { FormatResult } from "./formats/format-result.ts";
import { handleAnthropic } from "./formats/handle-anthropic.ts";
import { handleResponses } from "./formats/handle-responses.ts";
import { type ChatResult, handleChat, type SimState } from "./handle-chat.ts";
import { PrefixCache } from "./prefix-cache.ts";
import { blankLogEntry, RequestLog } from "./request-log.ts";

export interface SimModelOptions extends Partial<SimModelConfig> {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  host?: string;
}

/** A running sim model server. */
export interface SimModelServer {
  /** Origin, e.g. `http://127.0.0.1:4010`. */
  url: string;
  /** What the openai client takes as `baseURL` (`<url>/v1`). */
  baseURL: string;
  port: number;
  /** Live configuration: change faults, window or defaults between requests. */
  config: SimModelConfig;
  log: RequestLog;
  /** Forget fault counters (so `times`/`summary-fail` faults fire again) and the prefix cache. */
  reset(): void;
  close(): Promise<void>;
}

function respond(result: ChatResult): Response {
  if ("chunks" in result) {
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of result.chunks)
          controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
        controller.close();
      },
    });
    return new Response(stream, {
      status: 200,
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache", ...result.headers },
    });
  }
  return Response.json(result.json, { status: result.status, headers: result.headers });
}

/** A Responses or Anthropic answer: JSON, or its named server-sent events. */
function respondWithEvents(result: FormatResult): Response {
  if (!("events" in result))
    return Response.json(result.json, { status: result.status, headers: result.headers });
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const { event, data } of result.events)
        controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
      controller.close();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", ...result.headers },
  });
}

/** Build the hono app over a state object (exported for in-process use without a socket). */
export function createSimApp(state: SimState): Hono {
  const app = new Hono();
  app.get("/v1/models", (context) =>
    context.json({ object: "list", data: [{ id: "sim", object: "model", created: 0, owned_by: "longrun" }] }),
  );
  app.post("/v1/chat/completions", async (context) => {
    let body: unknown;
    try {
      body = await context.req.json();
    } catch {
      const error = invalidRequest(
        SIM_ERROR_CODES.invalidRequest,
        "We could not parse the JSON body of your request.",
      );
      state.log.add(blankLogEntry({ status: 400, errorCode: error.code }));
      return context.json(errorBody(error), 400);
    }
    return respond(await handleChat(state, body, (name) => context.req.header(name)));
  });
  // The other two wire formats: each checks its own rules, then plays the same script.
  for (const [path, handle] of [
    ["/v1/responses", handleResponses],
    ["/v1/messages", handleAnthropic],
  ] as const) {
    app.post(path, async (context) => {
      const body: unknown = await context.req.json().catch(() => undefined);
      return respondWithEvents(await handle(state, body, (name) => context.req.header(name)));
    });
  }
  app.get("/sim/log", (context) => context.json({ entries: state.log.entries }));
  // Faults of every request, set while the sim runs (drills without a wrapper): the body's `fault` takes
  // the x-sim-fault header's syntax, `delayMs` the x-sim-delay-ms one. Counters start over.
  app.get("/sim/faults", (context) => context.json({ faults: state.config.faults ?? null }));
  app.put("/sim/faults", async (context) => {
    const body = (await context.req.json().catch(() => null)) as {
      fault?: unknown;
      delayMs?: unknown;
    } | null;
    const fault = typeof body?.fault === "string" ? body.fault : undefined;
    const delay = typeof body?.delayMs === "number" ? String(body.delayMs) : undefined;
    const spec = body === null ? null : parseFaultHeaders(fault, delay);
    if (spec === null || "code" in spec) {
      const message = spec === null ? 'send {"fault": "status=500;times=2", "delayMs": 50}' : spec.message;
      return context.json(
        { error: { message, type: "invalid_request_error", param: null, code: null } },
        400,
      );
    }
    state.config.faults = Object.keys(spec).length > 0 ? { key: "admin", ...spec } : undefined;
    state.counters.reset();
    return context.json({ faults: state.config.faults ?? null });
  });
  app.delete("/sim/faults", (context) => {
    state.config.faults = undefined;
    state.counters.reset();
    return context.body(null, 204);
  });
  app.delete("/sim/log", (context) => {
    state.log.clear();
    return context.body(null, 204);
  });
  app.notFound((context) =>
    context.json(
      {
        error: {
          message: `Unknown path ${context.req.path}`,
          type: "invalid_request_error",
          param: null,
          code: null,
        },
      },
      404,
    ),
  );
  return app;
}

/** Start the sim model over HTTP (port 0 picks a free port). */
export async function startSimModel(options: SimModelOptions = {}): Promise<SimModelServer> {
  const { port = 0, host = "127.0.0.1", ...overrides } = options;
  const config: SimModelConfig = { ...DEFAULT_SIM_CONFIG, ...overrides };
  const state: SimState = {
    config,
    cache: new PrefixCache(),
    counters: new FaultCounters(),
    log: new RequestLog(config.logLimit),
    nextId: 1,
  };
  const app = createSimApp(state);
  const { server, address } = await new Promise<{ server: ReturnType<typeof serve>; address: AddressInfo }>(
    (resolve, reject) => {
      const started = serve({ fetch: app.fetch, port, hostname: host }, (info) =>
        resolve({ server: started, address: info }),
      );
      started.once("error", reject);
    },
  );
  const url = `http://${host}:${address.port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    port: address.port,
    config,
    log: state.log,
    reset() {
      state.counters.reset();
      state.cache.clear();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets of HTTP clients would hold close() open.
        if ("closeAllConnections" in server) server.closeAllConnections();
      }),
  };
}
