import type { ClientTurn } from "@longrun/openai-compat";
import {
  type ClientTurnOptions,
  type ClientTurnResult,
  runClientTurn,
  type TurnSink,
} from "@longrun/runtime";
import type { Context } from "hono";
import type { AuthEnv } from "../auth.ts";
import type { ServerDeps } from "../server-deps.ts";
import { clientLabel } from "./client-label.ts";

/** The client turn one gateway request asks for (any API), and how to end it early. */
export interface RequestTurn {
  run(sink: TurnSink): Promise<ClientTurnResult>;
  /** Ends the turn (a streamed answer the client cancelled). */
  abort(): void;
}

/**
 * Binds a parsed client turn to its request: the caller's tenant, headers and client label, and a
 * signal that ends the turn when the client goes away.
 */
export function requestTurn(
  deps: ServerDeps,
  options: ClientTurnOptions,
  context: Context<AuthEnv>,
  turn: ClientTurn,
): RequestTurn {
  const abort = new AbortController();
  context.req.raw.signal.addEventListener("abort", () => abort.abort(new Error("client went away")), {
    once: true,
  });
  return {
    run: (sink) =>
      runClientTurn(
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
      ),
    abort: () => abort.abort(),
  };
}
