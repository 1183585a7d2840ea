import { describe, expect, it, vi } from "vitest";
import { createTestRedis } from "./redis.ts";
import { EVENT_WAIT } from "./wait.ts";

describe("createTestRedis", () => {
  it("gives each test its own prefix and deletes only its keys on cleanup", async () => {
    const first = await createTestRedis();
    const second = await createTestRedis();
    try {
      expect(first.prefix).not.toBe(second.prefix);
      await first.redis.set(`${first.prefix}:a`, "1");
      await first.redis.hset(`${first.prefix}:b:c`, "field", "2");
      await second.redis.set(`${second.prefix}:a`, "kept");
      await first.cleanup();
      await vi.waitFor(() => expect(first.redis.status).toBe("end"), EVENT_WAIT);
      expect(await second.redis.exists(`${first.prefix}:a`, `${first.prefix}:b:c`)).toBe(0);
      expect(await second.redis.get(`${second.prefix}:a`)).toBe("kept");
    } finally {
      if (first.redis.status === "ready") await first.cleanup();
      await second.cleanup();
    }
  });
});
