import { describe, expect, it } from "vitest";
import { ConversationIndex } from "./conversation-index.ts";

describe("the index of conversations without a session id", () => {
  it("finds a thread by its first user message, or inside a transcript, per tenant", () => {
    const index = new ConversationIndex();
    index.remember("t1", "Explore this   project\nand report.", "thread-a");
    index.remember("t1", "Fix the failing test", "thread-b");
    expect(index.byFirstUser("t1", "Explore this project and report.")).toBe("thread-a");
    expect(index.byFirstUser("t2", "Explore this project and report.")).toBeUndefined();
    const transcript = "[User]: Fix the failing test\n[Assistant]: Looking.\n[Tool result]: ok";
    expect(index.inTranscript("t1", transcript)).toBe("thread-b");
    expect(index.inTranscript("t2", transcript)).toBeUndefined();
  });

  it("prefers the most recently active conversation and forgets the oldest past its capacity", () => {
    const index = new ConversationIndex(2);
    index.remember("t1", "Fix", "old");
    index.remember("t1", "Fix the failing test", "new");
    expect(index.inTranscript("t1", "[User]: Fix the failing test")).toBe("new");
    index.remember("t1", "Third", "third");
    expect(index.byFirstUser("t1", "Fix")).toBeUndefined();
    expect(index.byFirstUser("t1", "Third")).toBe("third");
  });
});
