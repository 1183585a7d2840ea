import { Redis, type RedisOptions } from "ioredis";
import { createRedisHealth, type RedisHealth } from "./redis-health.ts";

/** Publish/subscribe for event fan-out and control messages (cancel) between server instances. */
export interface Bus {
  /** Delivers `message` (JSON-serializable) to every current subscriber of `channel`, in any process. */
  publish(channel: string, message: unknown): Promise<void>;
  /** Resolves once the subscription is live; the returned function unsubscribes. */
  subscribe(channel: string, handler: (message: unknown) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Options of both buses. */
export interface BusOptions {
  /** Called when a handler throws or a message cannot be decoded; the other handlers still run. */
  onError?: (error: unknown, channel: string) => void;
  /** Connection state of this process (Redis bus only): outages are logged once, not per retry. */
  health?: RedisHealth;
}

type Handler = (message: unknown) => void;

const defaultOnError = (error: unknown, channel: string) =>
  console.error(`[longrun/queue] bus handler on "${channel}" failed`, error);

/** Calls every handler with its own decoded copy; one handler's failure does not starve the others. */
function deliver(handlers: Iterable<Handler>, raw: string, channel: string, onError: BusOptions["onError"]) {
  for (const handler of [...handlers]) {
    try {
      handler(JSON.parse(raw));
    } catch (error) {
      (onError ?? defaultOnError)(error, channel);
    }
  }
}

/** Bus on Redis pub/sub: channels are `${prefix}:bus:<channel>`; a dedicated connection subscribes. */
export function createRedisBus(
  connection: string | RedisOptions,
  prefix: string,
  options: BusOptions = {},
): Bus {
  // The publisher fails fast while Redis is unreachable (live fan-out is best effort: every event is in
  // the log first, and subscribers fill gaps from it); the subscriber reconnects and resubscribes.
  const open = (extra: RedisOptions) =>
    typeof connection === "string"
      ? new Redis(connection, { lazyConnect: true, ...extra })
      : new Redis({ ...connection, lazyConnect: true, ...extra });
  const publisher = open({ enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  const subscriber = open({});
  const health = options.health ?? createRedisHealth();
  health.watch(publisher, "bus");
  health.watch(subscriber, "bus");
  const connected = Promise.all([publisher.connect(), subscriber.connect()]);
  // `live` settles when Redis confirmed the SUBSCRIBE, so a second subscriber waits for it too.
  const channels = new Map<string, { handlers: Set<Handler>; live: Promise<unknown> }>();
  const channelName = (channel: string) => `${prefix}:bus:${channel}`;

  subscriber.on("message", (name: string, raw: string) => {
    const entry = channels.get(name);
    if (entry) deliver(entry.handlers, raw, name.slice(prefix.length + 5), options.onError);
  });

  return {
    async publish(channel, message) {
      await connected;
      await publisher.publish(channelName(channel), JSON.stringify(message));
    },
    async subscribe(channel, handler) {
      await connected;
      const name = channelName(channel);
      let entry = channels.get(name);
      if (!entry) {
        entry = { handlers: new Set(), live: subscriber.subscribe(name) };
        channels.set(name, entry);
      }
      entry.handlers.add(handler);
      await entry.live;
      const subscribed = entry;
      return async () => {
        if (!subscribed.handlers.delete(handler) || subscribed.handlers.size > 0) return;
        if (channels.get(name) !== subscribed) return;
        channels.delete(name);
        await subscriber.unsubscribe(name);
      };
    },
    async close() {
      await connected.catch(() => undefined);
      channels.clear();
      await Promise.allSettled([publisher.quit(), subscriber.quit()]);
    },
  };
}

/** Bus inside one process (embedded mode); delivers asynchronously and as JSON copies, like Redis. */
export function createMemoryBus(options: BusOptions = {}): Bus {
  const channels = new Map<string, Set<Handler>>();
  return {
    async publish(channel, message) {
      const handlers = channels.get(channel);
      if (!handlers) return;
      const raw = JSON.stringify(message);
      const targets = [...handlers];
      queueMicrotask(() => deliver(targets, raw, channel, options.onError));
    },
    async subscribe(channel, handler) {
      let handlers = channels.get(channel);
      if (!handlers) {
        handlers = new Set();
        channels.set(channel, handlers);
      }
      handlers.add(handler);
      const subscribed = handlers;
      return async () => {
        subscribed.delete(handler);
        if (subscribed.size === 0 && channels.get(channel) === subscribed) channels.delete(channel);
      };
    },
    async close() {
      channels.clear();
    },
  };
}
