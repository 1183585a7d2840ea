import { describe, expect, it } from "vitest";
import { bearerToken } from "./bearer-token.ts";

describe("bearerToken", () => {
  it("reads the token of a Bearer header, in any case of the scheme, around whitespace", () => {
    expect(bearerToken("Bearer abc.def-123")).toBe("abc.def-123");
    expect(bearerToken("bearer   abc ")).toBe("abc");
    expect(bearerToken("  BEARER abc")).toBe("abc");
  });

  it("answers null for anything else", () => {
    for (const header of [undefined, null, "", "Bearer", "Bearer ", "Basic abc", "Bearer a b", "Bearerabc"]) {
      expect(bearerToken(header)).toBeNull();
    }
  });
});
