import {
  type BusChannels,
  type BusMessage,
  type BusMessageInput,
  busChannels,
  type ChannelSchemas,
} from "@longrun/protocol";
import { Redis, type RedisOptions } from "ioredis";
import { createRedisHealth, type RedisHealth } from "./redis-health.ts";

/**
 * Publish/subscribe between processes (event fan-out, run control), typed by its channels: a publisher
 * sends what the channel's schema accepts, and every subscriber gets the message parsed again on
 * receipt (a message that does not parse goes to `onError`, never to a handler).
 */
export interface Bus<Channels extends ChannelSchemas = BusChannels> {
  /** Delivers `message` to every current subscriber of `channel`, in any process. */
  publish<Channel extends keyof Channels & string>(
    channel: Channel,
    message: BusMessageInput<Channels, Channel>,
  ): Promise<void>;
  /** Resolves once the subscription is live; the returned function unsubscribes. */
  subscribe<Channel extends keyof Channels & string>(
    channel: Channel,
    handler: (message: BusMessage<Channels, Channel>) => void,
  ): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Options of both buses. */
export interface BusOptions<Channels extends ChannelSchemas = BusChannels> {
  /** The channels and their schemas (default: protocol's `busChannels`). */
  channels?: Channels;
  /** Called when a handler throws or a message does not parse; the other handlers still run. */
  onError?: (error: unknown, channel: string) => void;
  /** Connection state of this process (Redis bus only): outages are logged once, not per retry. */
  health?: RedisHealth;
}

type Handler = (message: unknown) => void;

const defaultOnError = (error: unknown, channel: string) =>
  console.error(`[longrun/queue] bus message on "${channel}" failed`, error);

/** Parses `raw` against the channel's schema once per handler (each gets its own copy). */
function deliver(
  handlers: Iterable<Handler>,
  raw: string,
  channel: string,
  schemas: ChannelSchemas,
  onError: BusOptions["onError"],
) {
  const report = onError ?? defaultOnError;
  const schema = schemas[channel];
  if (!schema) return report(new Error(`no schema for bus channel "${channel}"`), channel);
  for (const handler of [...handlers]) {
    try {
      const parsed = schema.safeParse(JSON.parse(raw));
      if (!parsed.success) throw new Error(`invalid message: ${parsed.error.message}`);
      handler(parsed.data);
    } catch (error) {
      report(error, channel);
    }
  }
}

/** Bus on Redis pub/sub: channels are `${prefix}:bus:<channel>`; a dedicated connection subscribes. */
export function createRedisBus<Channels extends ChannelSchemas = BusChannels>(
  connection: string | RedisOptions,
  prefix: string,
  options: BusOptions<Channels> = {},
): Bus<Channels> {
  const schemas: ChannelSchemas = options.channels ?? busChannels;
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
    if (entry) deliver(entry.handlers, raw, name.slice(prefix.length + 5), schemas, options.onError);
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
      entry.handlers.add(handler as Handler);
      await entry.live;
      const subscribed = entry;
      return async () => {
        if (!subscribed.handlers.delete(handler as Handler) || subscribed.handlers.size > 0) return;
        if (channels.get(name) !== subscribed) return;
        channels.delete(name);
        await subscriber.unsubscribe(name);
      };
    },
    async close() {
      // A connection that never came up has nothing to wait for; its error was reported by the health view.
      await connected.catch(() => undefined);
      channels.clear();
      await Promise.allSettled([publisher.quit(), subscriber.quit()]);
    },
  };
}

/** Bus inside one process (embedded mode); delivers asynchronously and as JSON copies, like Redis. */
export function createMemoryBus<Channels extends ChannelSchemas = BusChannels>(
  options: BusOptions<Channels> = {},
): Bus<Channels> {
  const schemas: ChannelSchemas = options.channels ?? busChannels;
  const channels = new Map<string, Set<Handler>>();
  return {
    async publish(channel, message) {
      const handlers = channels.get(channel);
      if (!handlers) return;
      const raw = JSON.stringify(message);
      const targets = [...handlers];
      queueMicrotask(() => deliver(targets, raw, channel, schemas, options.onError));
    },
    async subscribe(channel, handler) {
      let handlers = channels.get(channel);
      if (!handlers) {
        handlers = new Set();
        channels.set(channel, handlers);
      }
      handlers.add(handler as Handler);
      const subscribed = handlers;
      return async () => {
        subscribed.delete(handler as Handler);
        if (subscribed.size === 0 && channels.get(channel) === subscribed) channels.delete(channel);
      };
    },
    async close() {
      channels.clear();
    },
  };
}
