import { describe, expect, it } from "vitest";
import { BoundedBuffer } from "./bounded-buffer.ts";
import { limitOutput } from "./limit-output.ts";

describe("limitOutput", () => {
  it("leaves short text alone", () => {
    expect(limitOutput("abc", 10)).toBe("abc");
  });

  it("never exceeds the limit and says how much was cut", () => {
    for (const size of [201, 1_000, 16_001, 250_000]) {
      const text = `HEAD${"m".repeat(size)}TAIL`;
      const cut = limitOutput(text, 200);
      expect(cut.length).toBeLessThanOrEqual(200);
      expect(cut.startsWith("HEAD")).toBe(true);
      expect(cut.endsWith("TAIL")).toBe(true);
      const omitted = Number(/output cut: (\d+) of (\d+)/.exec(cut)?.[1]);
      const kept = cut.replace(/\n\n\[output cut: .*\]\n\n/, "").length;
      expect(omitted + kept).toBe(text.length);
    }
  });
});

describe("BoundedBuffer", () => {
  it("keeps head and tail of a long stream", () => {
    const buffer = new BoundedBuffer(5);
    for (const chunk of ["abc", "defgh", "ijklmnop", "qr"]) buffer.append(chunk);
    expect(buffer.text()).toBe("abcde\n\n[output cut: 8 of 18 characters omitted]\n\nnopqr");
  });
});
