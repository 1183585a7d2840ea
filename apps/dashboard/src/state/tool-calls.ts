import type { ToolActivity } from "./thread-state.ts";

/** Every version of each call, oldest first, shared by the ToolCalls made from one another. */
interface Store {
  readonly versions: Map<string, { version: number; tool: ToolActivity }[]>;
  /** Each call's place in the order calls were first put in. */
  readonly ordinals: Map<string, number>;
  head: number;
}

/**
 * A thread's tool calls by call id, immutable. A batch that changes a few calls adds their new versions
 * to a store shared with the ToolCalls before (which reads only versions up to its own), so it costs
 * those calls, not a copy of every call the thread made; the calls still running are kept apart, so
 * listing them does not walk the finished ones. A batch on a ToolCalls that is no longer the newest
 * copies what it sees first.
 */
export class ToolCalls {
  static readonly empty = new ToolCalls({ versions: new Map(), ordinals: new Map(), head: 0 }, 0, new Map());

  private constructor(
    private readonly store: Store,
    private readonly version: number,
    private readonly runningNow: ReadonlyMap<string, ToolActivity>,
  ) {}

  get(callId: string): ToolActivity | undefined {
    const versions = this.store.versions.get(callId);
    if (!versions) return undefined;
    for (let index = versions.length - 1; index >= 0; index--) {
      const known = versions[index]!;
      if (known.version <= this.version) return known.tool;
    }
    return undefined;
  }

  /** The calls started and not finished, in the order the calls were first put in. */
  running(): ToolActivity[] {
    const ordinal = (tool: ToolActivity) => this.store.ordinals.get(tool.callId) ?? 0;
    return [...this.runningNow.values()].sort((left, right) => ordinal(left) - ordinal(right));
  }

  /** These calls put in (by call id: a known call is replaced). */
  with(tools: Iterable<ToolActivity>): ToolCalls {
    let store = this.store;
    if (store.head !== this.version) {
      // Another batch went on from here: a store of our own, with what this one sees.
      store = { versions: new Map(), ordinals: new Map(), head: this.version };
      for (const callId of this.store.versions.keys()) {
        const tool = this.get(callId);
        if (!tool) continue;
        store.versions.set(callId, [{ version: this.version, tool }]);
        store.ordinals.set(callId, store.ordinals.size);
      }
    }
    const version = store.head + 1;
    const running = new Map(this.runningNow);
    let changed = false;
    for (const tool of tools) {
      changed = true;
      const versions = store.versions.get(tool.callId) ?? [];
      if (!store.versions.has(tool.callId)) {
        store.versions.set(tool.callId, versions);
        store.ordinals.set(tool.callId, store.ordinals.size);
      }
      versions.push({ version, tool });
      if (tool.status === "running") running.set(tool.callId, tool);
      else running.delete(tool.callId);
    }
    if (!changed) return this;
    store.head = version;
    return new ToolCalls(store, version, running);
  }

  /** The calls it holds, by call id. */
  toJSON(): Record<string, ToolActivity> {
    const all: Record<string, ToolActivity> = {};
    for (const callId of this.store.versions.keys()) {
      const tool = this.get(callId);
      if (tool) all[callId] = tool;
    }
    return all;
  }
}
