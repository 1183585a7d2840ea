import type { LongrunClient } from "@longrun/client";
import type { ThreadDetail } from "@longrun/protocol";
import { expect, vi } from "vitest";

/** Waits until a run of the thread has the expected status; the thread's detail then. */
export function waitForRunStatus(
  client: LongrunClient,
  threadId: string,
  runId: string,
  expected: string,
): Promise<ThreadDetail> {
  return vi.waitFor(
    async () => {
      const detail = await client.threads.get(threadId);
      expect(detail.runs.find((run) => run.id === runId)?.status).toBe(expected);
      return detail;
    },
    { timeout: 60_000, interval: 50 },
  );
}
