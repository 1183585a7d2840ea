import type { Command } from "@longrun/protocol";
import NodeWebSocket from "ws";
import { type BackoffOptions, DEFAULT_BACKOFF } from "./backoff.ts";
import {
  ClientSubscription,
  type SubscribeFilter,
  type SubscriptionHandle,
  type SubscriptionHandlers,
} from "./client-subscription.ts";
import { Connection } from "./connection.ts";
import { LongrunApiError } from "./errors.ts";
import { createRestApi, type RestApi } from "./rest-api.ts";
import type { WebSocketConstructor } from "./websocket-like.ts";

export interface ClientOptions {
  /** Server origin, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  token: string;
  /** Default `globalThis.WebSocket`, else (Node 20 has none) the `ws` package's. */
  WebSocket?: WebSocketConstructor;
  /** Default the global `fetch`. */
  fetch?: typeof fetch;
  /** Socket URL; default `baseUrl` with ws(s): and `/v1/ws?token=…` (browsers cannot set headers). */
  wsUrl?: string;
  reconnect?: Partial<BackoffOptions>;
  /** Reconnect when the server is silent this long (it sends heartbeats). Default 45 s. */
  idleTimeoutMs?: number;
  /** Default 30 s. */
  commandTimeoutMs?: number;
}

/** The SDK: REST methods, live subscriptions with resume, and socket commands. */
export interface LongrunClient extends RestApi {
  subscribe(filter: SubscribeFilter, handlers: SubscriptionHandlers): SubscriptionHandle;
  /** Sends a command over the socket; resolves with the server's acknowledgement result. */
  command(command: Command): Promise<unknown>;
  /** Closes the socket and ends every subscription. */
  close(): void;
}

/** Creates a client for one server and token. */
export function createClient(options: ClientOptions): LongrunClient {
  const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
  if (!fetchImpl) throw new LongrunApiError(0, "bad_request", "no fetch available: pass options.fetch");
  const rest = createRestApi({ baseUrl: options.baseUrl, token: options.token, fetch: fetchImpl });
  let connection: Connection | null = null;

  const connect = (): Connection => {
    if (connection) return connection;
    const WebSocketImpl = options.WebSocket ?? defaultWebSocket();
    connection = new Connection({
      url: options.wsUrl ?? socketUrl(options.baseUrl, options.token),
      WebSocket: WebSocketImpl,
      backoff: { ...DEFAULT_BACKOFF, ...options.reconnect },
      idleTimeoutMs: options.idleTimeoutMs ?? 45_000,
      commandTimeoutMs: options.commandTimeoutMs ?? 30_000,
      ackDelayMs: 5,
      probeAuth: async () => {
        try {
          await rest.threads.list();
          return true;
        } catch (error) {
          return !(LongrunApiError.isInstance(error) && error.status === 401);
        }
      },
    });
    return connection;
  };

  return {
    ...rest,
    subscribe: (filter, handlers) => {
      const socket = connect();
      const subscription = new ClientSubscription(socket.newId("s"), filter, handlers, (urgent) =>
        socket.requestAckFlush(urgent),
      );
      socket.add(subscription);
      return {
        ready: subscription.ready,
        lastSeq: (threadId) => subscription.lastSeq(threadId),
        close: () => socket.remove(subscription),
      };
    },
    command: (command) => connect().command(command),
    close: () => {
      connection?.close();
      connection = null;
    },
  };
}

/**
 * The platform's WebSocket (browsers, Node 22+), else the `ws` package's. In a browser bundle `ws`
 * resolves to a stub that is never reached, because a browser always has the global.
 */
function defaultWebSocket(): WebSocketConstructor {
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  return global ?? (NodeWebSocket as unknown as WebSocketConstructor);
}

/** `http(s)://host/base` → `ws(s)://host/base/v1/ws?token=…`. */
export function socketUrl(baseUrl: string, token: string): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, "")}/v1/ws`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.searchParams.set("token", token);
  return url.toString();
}
