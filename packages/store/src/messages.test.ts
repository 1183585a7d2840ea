import type { NewMessage } from "@longrun/protocol";
import { StoredMessage } from "@longrun/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempStore } from "./__fixtures__/temp-store.ts";
import type { Store } from "./open-store.ts";

let store: Store;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ store, cleanup } = await tempStore());
});
afterEach(async () => {
  await cleanup();
});

const user = (text: string): NewMessage => ({ role: "user", content: text });

describe("messages", () => {
  it("assigns seq from 0 and round-trips every field", async () => {
    const first = await store.messages.append("agent-1", user("hello"));
    const call = {
      role: "assistant",
      content: null,
      toolCalls: [
        { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } },
      ],
      usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15, reasoningTokens: 2 },
      providerState: {
        reasoningDetails: [{ type: "reasoning.encrypted", data: "opaque" }],
        responseId: "r1",
      },
    } satisfies NewMessage;
    const second = await store.messages.append("agent-1", call);
    const result = await store.messages.append("agent-1", {
      role: "tool",
      content: "file text",
      toolCallId: "call_1",
      toolStatus: "ok",
      name: "read_file",
    });
    expect([first.seq, second.seq, result.seq]).toEqual([0, 1, 2]);
    const listed = await store.messages.list("agent-1");
    expect(listed).toEqual([first, second, result]);
    for (const message of listed) expect(StoredMessage.parse(message)).toEqual(message);
    expect(listed[1]).toMatchObject(call);
    expect(listed[0]).not.toHaveProperty("toolCalls");
    expect(await store.messages.get(second.id)).toEqual(second);
    expect(await store.messages.get("missing")).toBeNull();
  });

  it("stores a token estimate per message, with a custom counter when given", async () => {
    const message = await store.messages.append("a", user("x".repeat(35)));
    expect(message.tokenCount).toBe(10);
    const custom = await tempStore({ countTokens: () => 42 });
    try {
      expect((await custom.store.messages.append("a", user("hi"))).tokenCount).toBe(42);
    } finally {
      await custom.cleanup();
    }
  });

  it("keeps ids time-sortable and seqs independent per agent", async () => {
    const a0 = await store.messages.append("a", user("1"));
    const b0 = await store.messages.append("b", user("2"));
    const a1 = await store.messages.append("a", user("3"));
    expect([a0.seq, b0.seq, a1.seq]).toEqual([0, 0, 1]);
    expect([a0.id, b0.id, a1.id]).toEqual([a0.id, b0.id, a1.id].sort());
    expect(await store.messages.count("a")).toBe(2);
    expect((await store.messages.last("a"))?.id).toBe(a1.id);
    expect(await store.messages.last("nobody")).toBeNull();
  });

  it("appendMany writes in order, atomically, and a repeated id is a no-op", async () => {
    await store.messages.append("a", user("before"));
    const many = await store.messages.appendMany("a", [
      user("x"),
      { ...user("y"), id: "fixed-id" },
      user("z"),
    ]);
    expect(many.map((message) => message.seq)).toEqual([1, 2, 3]);
    expect(many[1]?.id).toBe("fixed-id");
    const again = await store.messages.append("a", user("y again"), { id: "fixed-id" });
    expect(again).toEqual(many[1]);
    expect(await store.messages.count("a")).toBe(4);
    await expect(store.messages.append("other", user("steal"), { id: "fixed-id" })).rejects.toMatchObject({
      code: "conflict",
    });
    expect(await store.messages.appendMany("a", [])).toEqual([]);
  });

  it("lists after a seq with a limit", async () => {
    await store.messages.appendMany(
      "a",
      Array.from({ length: 10 }, (_, index) => user(`m${index}`)),
    );
    const page = await store.messages.list("a", { afterSeq: 3, limit: 4 });
    expect(page.map((message) => message.seq)).toEqual([4, 5, 6, 7]);
  });

  it("fromBoundary resolves by id, and by index when the id is gone", async () => {
    const all = await store.messages.appendMany(
      "a",
      Array.from({ length: 8 }, (_, index) => user(`m${index}`)),
    );
    const byId = await store.messages.fromBoundary("a", { cutoffMessageId: all[5]!.id, cutoffIndex: 2 });
    // The id wins over a stale index.
    expect(byId.map((message) => message.seq)).toEqual([5, 6, 7]);
    const fallback = await store.messages.fromBoundary("a", { cutoffMessageId: "gone", cutoffIndex: 6 });
    expect(fallback.map((message) => message.seq)).toEqual([6, 7]);
    const noId = await store.messages.fromBoundary("a", { cutoffMessageId: null, cutoffIndex: 0 });
    expect(noId).toHaveLength(8);
    // An id of another agent is not this agent's boundary.
    const other = await store.messages.append("b", user("b0"));
    const foreign = await store.messages.fromBoundary("a", { cutoffMessageId: other.id, cutoffIndex: 7 });
    expect(foreign.map((message) => message.seq)).toEqual([7]);
  });

  it("reads boundaries, heads and ids through indexes, never a table scan", async () => {
    const plan = async (query: string) =>
      (await store.db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`))
        .map((row) => row.detail)
        .join(" ");
    expect(await plan("SELECT * FROM messages WHERE agent_id = 'a' AND seq >= 5 ORDER BY seq")).toMatch(
      /USING INDEX messages_agent_seq_idx/,
    );
    expect(await plan("SELECT max(seq) FROM messages WHERE agent_id = 'a'")).toMatch(
      /messages_agent_seq_idx/,
    );
    expect(await plan("SELECT seq FROM messages WHERE id = 'x' AND agent_id = 'a'")).toMatch(
      /USING INDEX sqlite_autoindex_messages_1/,
    );
    expect(await plan("SELECT max(seq) FROM events WHERE thread_id = 't'")).toMatch(
      /sqlite_autoindex_events_1/,
    );
  });

  it("upTo returns the inclusive prefix and rejects an unknown id", async () => {
    const all = await store.messages.appendMany(
      "a",
      Array.from({ length: 5 }, (_, index) => user(`m${index}`)),
    );
    const prefix = await store.messages.upTo("a", all[2]!.id);
    expect(prefix.map((message) => message.seq)).toEqual([0, 1, 2]);
    await expect(store.messages.upTo("a", "nope")).rejects.toMatchObject({ code: "not_found" });
  });

  it("finds the tool result for a call id", async () => {
    await store.messages.append("a", {
      role: "assistant",
      content: null,
      toolCalls: [{ id: "c1", type: "function", function: { name: "grep", arguments: "{}" } }],
    });
    expect(await store.messages.findByToolCallId("a", "c1")).toBeNull();
    const result = await store.messages.append("a", {
      role: "tool",
      content: "out",
      toolCallId: "c1",
      toolStatus: "error",
    });
    expect(await store.messages.findByToolCallId("a", "c1")).toEqual(result);
    expect(await store.messages.findByToolCallId("b", "c1")).toBeNull();
  });

  it("keeps content arrays and null content", async () => {
    const parts = await store.messages.append("a", {
      role: "user",
      content: [
        { type: "text", text: "see" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
    });
    expect((await store.messages.get(parts.id))?.content).toEqual(parts.content);
    const empty = await store.messages.append("a", { role: "assistant", content: null });
    expect((await store.messages.get(empty.id))?.content).toBeNull();
  });
});
