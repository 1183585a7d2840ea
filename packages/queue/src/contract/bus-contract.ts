import { afterEach, describe, expect, it, vi } from "vitest";
import type { Bus } from "../bus.ts";

/** Opens buses that reach each other (Redis: same prefix; memory: the same bus). */
export interface BusHarness {
  open(): Bus;
  cleanup(): Promise<void>;
}

/** The behaviour every Bus must have. */
export function runBusContract(name: string, factory: () => Promise<BusHarness>): void {
  describe(`Bus contract: ${name}`, () => {
    let harness: BusHarness | undefined;
    let buses: Bus[] = [];
    const open = async () => {
      harness ??= await factory();
      const bus = harness.open();
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
      await vi.waitFor(() => expect(received).toEqual([event, event]));
      expect(other).toEqual([]);
    });

    it("stops delivering to a handler after it unsubscribes", async () => {
      const bus = await open();
      const first: unknown[] = [];
      const second: unknown[] = [];
      const unsubscribeFirst = await bus.subscribe("control", (message) => first.push(message));
      const unsubscribeSecond = await bus.subscribe("control", (message) => second.push(message));
      await bus.publish("control", { cancel: "run-1" });
      await vi.waitFor(() => expect(second).toHaveLength(1));
      await unsubscribeFirst();
      await bus.publish("control", { cancel: "run-2" });
      await vi.waitFor(() => expect(second).toHaveLength(2));
      // Both handlers are fed from one ordered stream, so by now the first would have seen run-2.
      expect(first).toEqual([{ cancel: "run-1" }]);
      await unsubscribeSecond();
    });

    it("delivers messages of one channel in publish order", async () => {
      const sender = await open();
      const receiver = await open();
      const received: number[] = [];
      await receiver.subscribe("ordered", (message) => received.push(message as number));
      for (let index = 0; index < 50; index += 1) await sender.publish("ordered", index);
      await vi.waitFor(() => expect(received).toHaveLength(50));
      expect(received).toEqual(Array.from({ length: 50 }, (_, index) => index));
    });
  });
}
