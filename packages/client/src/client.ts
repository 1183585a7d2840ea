import type { Command } from "@longrun/protocol";
import NodeWebSocket from "ws";
import { DEFAULT_BACKOFF } from "./backoff.ts";
import { type ClientOptions, resolveOptions } from "./client-options.ts";
import {
  ClientSubscription,
  type SubscribeFilter,
  type SubscriptionHandle,
  type SubscriptionHandlers,
} from "./client-subscription.ts";
import { Connection } from "./connection.ts";
import { AuthenticationError, LongrunError } from "./errors.ts";
import { EventStream, type StreamOptions } from "./event-stream.ts";
import { createRestApi, type RestApi } from "./rest-api.ts";
import { createRunsApi, type RunsApi, type Subscriber } from "./runs.ts";
import type { WebSocketConstructor } from "./websocket-like.ts";

/** The SDK: REST methods, event streams and subscriptions with resume, and socket commands. */
export interface LongrunClient extends Omit<RestApi, "runs" | "threads"> {
  threads: RestApi["threads"] & {
    /**
     * The thread's events as an async iterator (`for await`), replayed after `since` and then live; it
     * resumes by itself after a lost connection or a server restart, nothing missing or doubled.
     */
    stream(threadId: string, options?: StreamOptions): EventStream;
  };
  runs: RunsApi;
  /** The callback form of `threads.stream`, also for every thread of the tenant (`threadId: "*"`). */
  subscribe(filter: SubscribeFilter, handlers: SubscriptionHandlers): SubscriptionHandle;
  /** Sends a command over the socket; resolves with the server's acknowledgement result. */
  command(command: Command): Promise<unknown>;
  /** Closes the socket and ends every subscription and stream. */
  close(): void;
}

/** Creates a client for one server and token (default `LONGRUN_URL` and `LONGRUN_TOKEN`). */
export function createClient(clientOptions?: ClientOptions): LongrunClient {
  const options = resolveOptions(clientOptions);
  const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
  if (!fetchImpl) throw new LongrunError("createClient: no fetch available: pass options.fetch");
  const rest = createRestApi({
    baseUrl: options.baseUrl,
    token: options.token,
    fetch: fetchImpl,
    timeout: options.timeout,
    maxRetries: options.maxRetries,
  });
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
          await rest.threads.list({ limit: 1 }, { maxRetries: 0 });
          return true;
        } catch (error) {
          return !AuthenticationError.isInstance(error);
        }
      },
    });
    return connection;
  };

  const subscribe = (filter: SubscribeFilter, handlers: SubscriptionHandlers): SubscriptionHandle => {
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
  };
  const subscriber: Subscriber = (filter) => (handlers) => subscribe(filter, handlers);

  return {
    ...rest,
    threads: {
      ...rest.threads,
      stream: (threadId, streamOptions = {}) => {
        const { since, types, agentId } = streamOptions;
        const filter: SubscribeFilter = {
          threadId,
          ...(since === undefined ? {} : { since }),
          ...(types ? { types } : {}),
          ...(agentId ? { agentId } : {}),
        };
        return new EventStream(subscriber(filter), threadId, streamOptions);
      },
    },
    runs: createRunsApi(rest, subscriber),
    subscribe,
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
