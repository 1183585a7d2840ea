import { type Command, LongrunError, type LongrunEvent, type NewEvent } from "@longrun/protocol";
import type { LiveEvent } from "./types.ts";
import type { SocketAdapterDeps } from "./ws-adapter.ts";

interface MemoryThread {
  tenantId: string;
  /** Retained events; `events[0]` has seq `firstRetained`. */
  events: LongrunEvent[];
  firstRetained: number;
  nextSeq: number;
}

type Publish = (event: LiveEvent, deliver: () => void) => void;

/**
 * An in-memory durable event log with a live emitter, implementing the gateway's dependencies. It stands in
 * for the store in gateway tests (and embedded experiments): append persists first, then publishes.
 */
export class MemorySocketDeps {
  readonly threads = new Map<string, MemoryThread>();
  readonly tokens = new Map<string, string>();
  readonly commandsSeen: { tenantId: string; command: Command }[] = [];
  private readonly listeners = new Set<(event: LiveEvent) => void>();
  /** Whether live events carry the tenant stamp (a fan-out may or may not know it). */
  stampTenant = true;
  /** Hook to delay or reorder publication; default publishes synchronously. */
  publish: Publish = (_event, deliver) => deliver();
  commandHandler: (tenantId: string, command: Command) => Promise<unknown> = async (_tenantId, command) => ({
    accepted: command.kind,
  });

  addToken(token: string, tenantId: string): void {
    this.tokens.set(token, tenantId);
  }

  createThread(threadId: string, tenantId: string): void {
    // Seqs start at 1 and head is 0 for an empty thread, as in the store.
    this.threads.set(threadId, { tenantId, events: [], firstRetained: 1, nextSeq: 1 });
  }

  /** Persists an event (assigning the next seq) and then publishes it. */
  append(event: NewEvent): LongrunEvent {
    const thread = this.mustThread(event.threadId);
    const stored = { ...event, seq: thread.nextSeq, at: Date.now() } as LongrunEvent;
    thread.nextSeq += 1;
    thread.events.push(stored);
    this.emit(stored, thread.tenantId);
    return stored;
  }

  /** Publishes a token delta without persisting it. */
  delta(threadId: string, text: string, agentId?: string): void {
    const thread = this.mustThread(threadId);
    const event = {
      threadId,
      seq: Math.max(0, thread.nextSeq - 1),
      type: "message.delta",
      data: { text },
      at: Date.now(),
      ...(agentId ? { agentId } : {}),
    } as LongrunEvent;
    this.emit(event, thread.tenantId);
  }

  /** Drops retained events below `seq` (retention). */
  prune(threadId: string, seq: number): void {
    const thread = this.mustThread(threadId);
    const drop = Math.max(0, Math.min(seq - thread.firstRetained, thread.events.length));
    thread.events.splice(0, drop);
    thread.firstRetained += drop;
  }

  listenerCount(): number {
    return this.listeners.size;
  }

  deps(): SocketAdapterDeps {
    return {
      authenticate: async (token) => {
        const tenantId = this.tokens.get(token);
        // The token is its own key id here.
        return tenantId === undefined ? null : { tenantId, keyId: token };
      },
      liveKeys: async (ids) => new Set(ids.filter((id) => this.tokens.has(id))),
      log: {
        after: async (threadId, afterSeq, limit) => {
          const thread = this.threads.get(threadId);
          if (!thread) return [];
          const from = Math.max(0, afterSeq + 1 - thread.firstRetained);
          return thread.events.slice(from, from + limit);
        },
        oldest: async (threadId) => {
          const thread = this.threads.get(threadId);
          return thread && thread.events.length > 0 ? thread.firstRetained : null;
        },
        head: async (threadId) => (this.threads.get(threadId)?.nextSeq ?? 1) - 1,
      },
      threads: {
        canAccess: async (tenantId, threadId) => this.threads.get(threadId)?.tenantId === tenantId,
        listIds: async (tenantId) =>
          [...this.threads].filter(([, thread]) => thread.tenantId === tenantId).map(([id]) => id),
      },
      live: {
        subscribe: (handler) => {
          this.listeners.add(handler);
          return () => this.listeners.delete(handler);
        },
      },
      commands: {
        execute: async (tenantId, command) => {
          this.commandsSeen.push({ tenantId, command });
          return this.commandHandler(tenantId, command);
        },
      },
      now: () => Date.now(),
    };
  }

  private emit(event: LongrunEvent, tenantId: string): void {
    const live: LiveEvent = this.stampTenant ? { ...event, tenantId } : event;
    this.publish(live, () => {
      for (const listener of this.listeners) listener(live);
    });
  }

  private mustThread(threadId: string): MemoryThread {
    const thread = this.threads.get(threadId);
    if (!thread) throw new LongrunError("not_found", `thread ${threadId} not found`);
    return thread;
  }
}
