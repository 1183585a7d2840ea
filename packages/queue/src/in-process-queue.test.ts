import { runQueueContract } from "./contract/queue-contract.ts";
import { createInProcessJobStore, createInProcessQueue } from "./in-process-queue.ts";

runQueueContract("in-process", async () => {
  const store = createInProcessJobStore();
  return { open: (policy) => createInProcessQueue({ store, policy }), cleanup: async () => {} };
});
