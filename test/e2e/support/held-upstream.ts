import { startRecordingProxy } from "../../real-clients/support/recording-proxy.ts";

/** A request the gate holds: its parsed body, and how to let it through. */
export interface HeldRequest {
  body: Record<string, unknown>;
  release(): void;
}

/**
 * A pass-through proxy in front of an upstream model (the sim) that holds the requests a test picks
 * until the test releases them: a run can be caught inside a model call or a summary call, and the
 * test acts while it is there, waiting on the held request rather than on time.
 */
export interface HeldUpstream {
  /** What longrun or an OpenAI client takes as its base URL (`<origin>/v1`). */
  baseURL: string;
  /** Holds every request the predicate picks from now on; null lets every request through. */
  hold(predicate: ((body: Record<string, unknown>) => boolean) | null): void;
  /** The next held request (one already waiting, else the next one to arrive). */
  nextHeld(): Promise<HeldRequest>;
  /** Lets every held request through and stops holding. */
  releaseAll(): void;
  close(): Promise<void>;
}

/** Starts the gate on a free port in front of `target` (an origin such as the sim's `url`). */
export async function startHeldUpstream(target: string): Promise<HeldUpstream> {
  let predicate: ((body: Record<string, unknown>) => boolean) | null = null;
  const waiting: HeldRequest[] = [];
  const takers: Array<(held: HeldRequest) => void> = [];
  const releases = new Set<() => void>();
  const proxy = await startRecordingProxy(target, {
    beforeForward: (record) => {
      const body = (record.body ?? {}) as Record<string, unknown>;
      if (typeof body !== "object" || !predicate?.(body)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        releases.add(resolve);
        const held = {
          body,
          release: () => {
            releases.delete(resolve);
            resolve();
          },
        };
        const taker = takers.shift();
        if (taker) taker(held);
        else waiting.push(held);
      });
    },
  });
  const releaseAll = () => {
    predicate = null;
    waiting.length = 0;
    for (const release of [...releases]) release();
    releases.clear();
  };
  return {
    baseURL: `${proxy.url}/v1`,
    hold(next) {
      predicate = next;
    },
    nextHeld() {
      const ready = waiting.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => takers.push(resolve));
    },
    releaseAll,
    async close() {
      releaseAll();
      await proxy.close();
    },
  };
}
