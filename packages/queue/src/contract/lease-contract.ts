import { afterEach, describe, expect, it, vi } from "vitest";
import type { Lease } from "../lease.ts";

/** A lease backend for one test. */
export interface LeaseHarness {
  lease: Lease;
  cleanup(): Promise<void>;
}

/** The behaviour every Lease must have. */
export function runLeaseContract(name: string, factory: () => Promise<LeaseHarness>): void {
  describe(`Lease contract: ${name}`, () => {
    let harness: LeaseHarness | undefined;
    const open = async () => {
      harness = await factory();
      return harness.lease;
    };
    afterEach(async () => {
      await harness?.cleanup();
      harness = undefined;
    });

    it("lets one holder in per key", async () => {
      const lease = await open();
      const held = await lease.acquire("agent-1", 10_000);
      expect(held?.token).toBeGreaterThan(0);
      expect(await lease.acquire("agent-1", 10_000)).toBeNull();
      expect(await lease.acquire("agent-2", 10_000)).not.toBeNull();
    });

    it("never hands out a token at or below the floor, and says while a lease is held", async () => {
      const lease = await open();
      expect(await lease.isHeld("agent-1")).toBe(false);
      const first = await lease.acquire("agent-1", 10_000, { floor: 79 });
      expect(first!.token).toBe(80);
      expect(await lease.isHeld("agent-1")).toBe(true);
      await first!.release();
      expect(await lease.isHeld("agent-1")).toBe(false);
      // A lower floor (an older view of the database) never takes the counter back.
      const second = await lease.acquire("agent-1", 10_000, { floor: 3 });
      expect(second!.token).toBe(81);
    });

    it("hands the lease to exactly one of many concurrent acquirers", async () => {
      const lease = await open();
      const results = await Promise.all(Array.from({ length: 20 }, () => lease.acquire("agent-1", 10_000)));
      expect(results.filter((result) => result !== null)).toHaveLength(1);
    });

    it("gives the next holder a higher token after a release", async () => {
      const lease = await open();
      const first = await lease.acquire("agent-1", 10_000);
      expect(await first!.release()).toBe(true);
      expect(await first!.release()).toBe(false);
      const second = await lease.acquire("agent-1", 10_000);
      expect(second!.token).toBeGreaterThan(first!.token);
    });

    it("expires a crashed holder's lease; the old holder can neither renew nor release the new one", async () => {
      const lease = await open();
      const crashed = await lease.acquire("agent-1", 100);
      const taken = await vi.waitFor(
        async () => {
          const next = await lease.acquire("agent-1", 10_000);
          if (!next) throw new Error("still held");
          return next;
        },
        { timeout: 5_000, interval: 20 },
      );
      expect(taken.token).toBeGreaterThan(crashed!.token);
      expect(await crashed!.renew()).toBe(false);
      expect(await crashed!.release()).toBe(false);
      expect(await lease.acquire("agent-1", 10_000)).toBeNull();
      expect(await taken.renew()).toBe(true);
    });

    it("lets a holder whose lease lapsed take it back, unless a higher token was handed out since", async () => {
      const lease = await open();
      const slow = await lease.acquire("agent-1", 100);
      // Lapsed (a long tool call whose renewals were late, or a store that lost its keys), nobody took it.
      await vi.waitFor(async () => expect(await lease.isHeld("agent-1")).toBe(false), {
        timeout: 5_000,
        interval: 20,
      });
      expect(await slow!.renew(10_000)).toBe(true);
      expect(await lease.acquire("agent-1", 10_000)).toBeNull();
      await slow!.release();
      const next = await lease.acquire("agent-1", 10_000);
      await next!.release();
      // A higher token exists now: the old holder may not come back.
      expect(await slow!.renew(10_000)).toBe(false);
    });

    it("keeps a renewed lease past its first ttl", async () => {
      const lease = await open();
      const startedAt = Date.now();
      const held = await lease.acquire("agent-1", 400);
      expect(await held!.renew(10_000)).toBe(true);
      // Waiting on the clock is the point here: the original ttl must pass.
      await vi.waitFor(() => expect(Date.now() - startedAt).toBeGreaterThan(600), {
        timeout: 3_000,
        interval: 50,
      });
      expect(await lease.acquire("agent-1", 10_000)).toBeNull();
      expect(await held!.release()).toBe(true);
    });
  });
}
