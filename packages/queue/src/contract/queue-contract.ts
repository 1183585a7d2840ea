import { afterEach, describe } from "vitest";
import type { PolicyOverrides } from "../catalog.ts";
import type { JobQueue } from "../job-queue.ts";
import { fairShareCases } from "./queue-contract-fair-share.ts";
import { runningCases } from "./queue-contract-running.ts";
import { schedulingCases } from "./queue-contract-scheduling.ts";
import { shutdownCases } from "./queue-contract-shutdown.ts";
import { fast, type QueueHarness } from "./queue-contract-support.ts";

export type { QueueHarness } from "./queue-contract-support.ts";

/** The one behaviour suite every JobQueue adapter must pass. */
export function runQueueContract(name: string, factory: () => Promise<QueueHarness>): void {
  describe(`JobQueue contract: ${name}`, () => {
    let harness: QueueHarness | undefined;
    let handles: JobQueue[] = [];
    const open = async (policy: PolicyOverrides = fast) => {
      harness ??= await factory();
      const queue = harness.open(policy);
      handles.push(queue);
      return queue;
    };

    afterEach(async () => {
      await Promise.all(handles.map((queue) => queue.close({ graceMs: 0 })));
      await harness?.cleanup();
      harness = undefined;
      handles = [];
    });

    runningCases(open);
    schedulingCases(open);
    shutdownCases(open);
    fairShareCases(open);
  });
}
