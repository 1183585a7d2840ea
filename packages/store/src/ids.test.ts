import { describe, expect, it } from "vitest";
import { idTime, newId } from "./ids.ts";

describe("newId", () => {
  it("makes UUIDv7 strings that sort in creation order, even within one millisecond", () => {
    const ids = Array.from({ length: 2000 }, () => newId(1_700_000_000_000));
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(idTime(ids[0]!)).toBe(1_700_000_000_000);
  });

  it("embeds the current time", () => {
    const before = Date.now();
    const time = idTime(newId());
    expect(time).toBeGreaterThanOrEqual(before);
  });
});
