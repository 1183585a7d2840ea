import { describe, expect, it } from "vitest";
import { shortPath } from "./format.ts";

describe("shortPath", () => {
  it("keeps the part from .longrun/ on, or the last two segments", () => {
    expect(shortPath("/tmp/data/workspaces/t1/.longrun/history/t1/a.jsonl")).toBe(
      ".longrun/history/t1/a.jsonl",
    );
    expect(shortPath("/var/lib/longrun/history/a.jsonl")).toBe("…/history/a.jsonl");
    expect(shortPath("notes/a.jsonl")).toBe("notes/a.jsonl");
  });
});
