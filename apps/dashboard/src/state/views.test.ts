import { describe, expect, it } from "vitest";
import { takeToken } from "../api/token.ts";
import { parseRoute, routeHash } from "../hooks/use-hash-route.ts";
import { buildAgentTree, flattenTree, rootAgentId } from "./agent-tree.ts";
import { applyEvents } from "./apply-events.ts";
import { chartGeometry } from "./chart-geometry.ts";
import { compactionNotices } from "./removed-ranges.ts";
import { makeEvent } from "./test-events.ts";
import { emptyThreadState } from "./thread-state.ts";

const saved = { collapse: 0, truncate: 0, microcompact: 0 };

describe("agent tree", () => {
  it("nests sub-agent teams under their parent", () => {
    const state = applyEvents(emptyThreadState("t1"), [
      makeEvent(
        "agent.spawned",
        1,
        { name: "root", parentAgentId: null, inherit: "fresh" },
        { agentId: "r" },
      ),
      makeEvent("agent.spawned", 2, { name: "a", parentAgentId: "r", inherit: "fresh" }, { agentId: "a" }),
      makeEvent("agent.spawned", 3, { name: "b", parentAgentId: "r", inherit: "fork" }, { agentId: "b" }),
      makeEvent("agent.spawned", 4, { name: "a1", parentAgentId: "a", inherit: "fresh" }, { agentId: "a1" }),
      makeEvent(
        "agent.spawned",
        5,
        { name: "orphan", parentAgentId: "gone", inherit: "fresh" },
        { agentId: "o" },
      ),
    ]);
    const flat = flattenTree(buildAgentTree(state)).map((node) => `${node.depth}:${node.agent.name}`);
    expect(flat).toEqual(["0:root", "1:a", "2:a1", "1:b", "0:orphan"]);
    expect(rootAgentId(state)).toBe("r");
  });
});

describe("chart geometry", () => {
  it("draws one point per measurement and marks a compaction between the steps around it", () => {
    const events = [1, 2, 3, 4].map((step) =>
      makeEvent("context.measured", step * 2, {
        step,
        rawTokens: step * 2000,
        projectedTokens: step === 4 ? 1500 : step * 2000,
        maxInputTokens: 8192,
        triggerTokens: 6144,
        saved,
        needsCompaction: step === 3,
      }),
    );
    events.push(
      makeEvent("compaction.completed", 7, {
        compactionKey: "k",
        compactionId: "c",
        strategy: "partial",
        trigger: "auto",
        tokensBefore: 6000,
        tokensAfter: 1500,
        saved,
        cutoffMessageId: null,
        historyFile: null,
        restored: [],
      }),
    );
    const state = applyEvents(emptyThreadState("t1"), events);
    const box = { width: 300, height: 100, padding: 0 };
    const geometry = chartGeometry(
      state.measurements["a-root"] ?? [],
      compactionNotices(state, "a-root"),
      box,
    );
    expect(geometry.points.map((point) => point.x)).toEqual([0, 100, 200, 300]);
    expect(geometry.compactionMarks.map((mark) => mark.x)).toEqual([250]);
    expect(geometry.triggerY).not.toBeNull();
    expect(geometry.maxY!).toBeLessThan(geometry.triggerY!);
    expect(geometry.projectedPath.startsWith("M0,")).toBe(true);
  });

  it("handles an empty series", () => {
    const geometry = chartGeometry([], [], { width: 100, height: 50, padding: 4 });
    expect(geometry.points).toEqual([]);
    expect(geometry.projectedPath).toBe("");
  });
});

describe("token from the printed URL", () => {
  it("stores the token and strips it from the address", () => {
    const store = new Map<string, string>();
    const storage = {
      getItem: (key: string) => store.get(key) ?? null,
      setItem: (key: string, value: string) => void store.set(key, value),
      removeItem: (key: string) => void store.delete(key),
    };
    const first = takeToken({ href: "http://127.0.0.1:8787/?token=abc&x=1#/ops" }, storage);
    expect(first).toEqual({ token: "abc", cleanUrl: "/?x=1#/ops" });
    const later = takeToken({ href: "http://127.0.0.1:8787/" }, storage);
    expect(later).toEqual({ token: "abc", cleanUrl: null });
  });
});

describe("routes", () => {
  it("round-trips thread and ops routes", () => {
    expect(parseRoute("#/threads/t%2F1")).toEqual({ view: "threads", threadId: "t/1" });
    expect(parseRoute("#/ops")).toEqual({ view: "ops" });
    expect(parseRoute("")).toEqual({ view: "threads", threadId: null });
    expect(routeHash({ view: "threads", threadId: "t/1" })).toBe("#/threads/t%2F1");
  });
});
