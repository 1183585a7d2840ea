import { ControlMessage } from "@longrun/protocol";
import { EVENT_WAIT } from "@longrun/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { Bus, BusOptions } from "../bus.ts";

/** The channels the contract publishes on: real control messages, and loose test channels. */
export const contractChannels = {
  control: ControlMessage,
  "events:thread-1": z.record(z.string(), z.unknown()),
  "events:thread-2": z.record(z.string(), z.unknown()),
  ordered: z.number(),
  fresh: z.number(),
};
export type ContractBus = Bus<typeof contractChannels>;

/** Opens buses that reach each other (Redis: same prefix; memory: the same bus). */
export interface BusHarness {
  open(options?: BusOptions<typeof contractChannels>): ContractBus;
  cleanup(): Promise<void>;
}

/** The behaviour every Bus must have. */
export function runBusContract(name: string, factory: () => Promise<BusHarness>): void {
  describe(`Bus contract: ${name}`, () => {
    let harness: BusHarness | undefined;
    let buses: ContractBus[] = [];
    const open = async (options: BusOptions<typeof contractChannels> = {}) => {
      harness ??= await factory();
      const bus = harness.open({ channels: contractChannels, ...options });
      buses.push(bus);
      return bus;
    };
    afterEach(async () => {
      await Promise.all(buses.map((bus) => bus.close()));
      await harness?.cleanup();
      harness = undefined;
      buses = [];
    });

    it("delivers a message to every subscriber of the channel, across bus instances", async () => {
      const sender = await open();
      const receiver = await open();
      const received: unknown[] = [];
      const other: unknown[] = [];
      await receiver.subscribe("events:thread-1", (message) => received.push(message));
      await sender.subscribe("events:thread-1", (message) => received.push(message));
      await receiver.subscribe("events:thread-2", (message) => other.push(message));
      const event = { type: "run.started", seq: 3, data: { nested: [1, "two"] } };
      await sender.publish("events:thread-1", event);
      await vi.waitFor(() => expect(received).toEqual([event, event]), EVENT_WAIT);
      expect(other).toEqual([]);
    });

    it("stops delivering to a handler after it unsubscribes", async () => {
      const bus = await open();
      const first: unknown[] = [];
      const second: unknown[] = [];
      const unsubscribeFirst = await bus.subscribe("control", (message) => first.push(message));
      const unsubscribeSecond = await bus.subscribe("control", (message) => second.push(message));
      await bus.publish("control", { type: "cancel", runId: "run-1" });
      await vi.waitFor(() => expect(second).toHaveLength(1), EVENT_WAIT);
      await unsubscribeFirst();
      await bus.publish("control", { type: "cancel", runId: "run-2" });
      await vi.waitFor(() => expect(second).toHaveLength(2), EVENT_WAIT);
      // Both handlers are fed from one ordered stream, so by now the first would have seen run-2.
      expect(first).toEqual([{ type: "cancel", runId: "run-1" }]);
      await unsubscribeSecond();
    });

    it("parses every message on receipt: one that does not fit its channel's schema reaches no handler", async () => {
      const errors: string[] = [];
      const sender = await open();
      const receiver = await open({ onError: (_error, channel) => errors.push(channel) });
      const received: unknown[] = [];
      await receiver.subscribe("control", (message) => received.push(message));
      // What an older or broken process might send; typed publishing refuses it at compile time.
      await sender.publish("control", { type: "cancel" } as never);
      await sender.publish("control", { type: "cancel", runId: "run-3", extra: true } as never);
      await vi.waitFor(() => expect(received).toHaveLength(1), EVENT_WAIT);
      // Parsed, not passed through: unknown keys are stripped.
      expect(received).toEqual([{ type: "cancel", runId: "run-3" }]);
      expect(errors).toEqual(["control"]);
    });

    it("delivers messages of one channel in publish order", async () => {
      const sender = await open();
      const receiver = await open();
      const received: number[] = [];
      await receiver.subscribe("ordered", (message) => received.push(message));
      for (let index = 0; index < 50; index += 1) await sender.publish("ordered", index);
      await vi.waitFor(() => expect(received).toHaveLength(50), EVENT_WAIT);
      expect(received).toEqual(Array.from({ length: 50 }, (_, index) => index));
    });
  });
}
