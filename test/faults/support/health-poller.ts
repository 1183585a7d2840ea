import { once } from "node:events";
import { Worker } from "node:worker_threads";

export interface HealthReport {
  worst: number;
  /** Wall-clock time the worst poll was sent. */
  worstAt: number;
  count: number;
  failures: number;
}

/**
 * Polls `url`/healthz from a worker thread (its own event loop, so the test's own work never delays
 * a poll) every 10 ms until stopped; reports the worst latency, when it happened, and the failures.
 */
export function startHealthPoller(url: string): { stop(): Promise<HealthReport> } {
  const worker = new Worker(
    `const { parentPort, workerData } = require("node:worker_threads");
     let running = true, worst = 0, worstAt = 0, count = 0, failures = 0;
     parentPort.on("message", () => { running = false; });
     (async () => {
       while (running) {
         const started = performance.now();
         try {
           const response = await fetch(workerData.url + "/healthz");
           await response.text();
           if (!response.ok) failures++;
         } catch { failures++; }
         const took = performance.now() - started;
         if (took > worst) { worst = took; worstAt = Date.now() - took; }
         count++;
         await new Promise((resolve) => setTimeout(resolve, 10));
       }
       parentPort.postMessage({ worst, worstAt, count, failures });
     })();`,
    { eval: true, workerData: { url } },
  );
  return {
    async stop() {
      worker.postMessage("stop");
      const [report] = (await once(worker, "message")) as [HealthReport];
      await worker.terminate();
      return report;
    },
  };
}
