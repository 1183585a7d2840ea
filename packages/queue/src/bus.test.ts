import { createTestRedis, EVENT_WAIT } from "@longrun/testing";
import { describe, expect, it, vi } from "vitest";
import { type BusOptions, createMemoryBus, createRedisBus } from "./bus.ts";
import { contractChannels, runBusContract } from "./contract/bus-contract.ts";

runBusContract("memory", async () => {
  // One process, one bus: every "instance" is the same delivery, each with its own error handler.
  let onError: BusOptions["onError"] | undefined;
  const bus = createMemoryBus({
    channels: contractChannels,
    onError: (error, channel) => onError?.(error, channel),
  });
  return {
    open: (options = {}) => {
      if (options.onError) onError = options.onError;
      return { ...bus, close: async () => {} };
    },
    cleanup: () => bus.close(),
  };
});

runBusContract("redis", async () => {
  const redis = await createTestRedis();
  return {
    open: (options) => createRedisBus(redis.url, redis.prefix, options),
    cleanup: () => redis.cleanup(),
  };
});

describe.each([
  [
    "memory",
    async () => ({
      open: (options: BusOptions<typeof contractChannels>) => createMemoryBus(options),
      cleanup: async () => {},
    }),
  ],
  [
    "redis",
    async () => {
      const redis = await createTestRedis();
      return {
        open: (options: BusOptions<typeof contractChannels>) =>
          createRedisBus(redis.url, redis.prefix, options),
        cleanup: () => redis.cleanup(),
      };
    },
  ],
] as const)("bus (%s)", (_name, factory) => {
  const channels = contractChannels;
  it("keeps delivering to other handlers when one throws, and reports the error", async () => {
    const { open, cleanup } = await factory();
    const errors: [unknown, string][] = [];
    const bus = open({ channels, onError: (error, channel) => errors.push([error, channel]) });
    try {
      const received: unknown[] = [];
      await bus.subscribe("control", () => {
        throw new Error("bad handler");
      });
      await bus.subscribe("control", (message) => received.push(message));
      await bus.publish("control", { type: "cancel", runId: "run-1" });
      await vi.waitFor(() => expect(received).toEqual([{ type: "cancel", runId: "run-1" }]), EVENT_WAIT);
      expect(errors).toHaveLength(1);
      expect(errors[0]![1]).toBe("control");
    } finally {
      await bus.close();
      await cleanup();
    }
  });

  it("has every concurrent subscriber of a new channel live when subscribe resolves", async () => {
    const { open, cleanup } = await factory();
    const bus = open({ channels });
    try {
      const received: string[] = [];
      await Promise.all(["a", "b", "c"].map((tag) => bus.subscribe("fresh", () => received.push(tag))));
      await bus.publish("fresh", 1);
      await vi.waitFor(() => expect(received.sort()).toEqual(["a", "b", "c"]), EVENT_WAIT);
    } finally {
      await bus.close();
      await cleanup();
    }
  });
});
