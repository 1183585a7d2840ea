import { once } from "node:events";
import { Worker } from "node:worker_threads";

export interface HealthReport {
  worst: number;
  /** Wall-clock time the worst poll was sent. */
  worstAt: number;
  count: number;
  failures: number;
  /**
   * With `loopPid`: the most CPU time (ms) the server's event-loop thread spent while one poll waited
   * for its answer, and when that poll was sent. Unlike the latency, it does not grow when the machine
   * is busy (time spent waiting for a core is not CPU time), yet a loop frozen on a long synchronous step
   * shows in it whole.
   */
  worstLoopCpu?: number;
  worstLoopCpuAt?: number;
}

/**
 * Polls `url`/healthz from a worker thread (its own event loop, so the test's own work never delays
 * a poll) every 10 ms until stopped; reports the worst latency, when it happened, and the failures.
 *
 * With `loopPid` (the process whose main thread runs the server's event loop: a child's pid, or
 * `process.pid` for a server embedded in the test's own process), each poll also reads that thread's
 * on-CPU time (`/proc/<pid>/task/<pid>/schedstat`, nanoseconds) before it is sent and after its answer.
 */
export function startHealthPoller(url: string, loopPid?: number): { stop(): Promise<HealthReport> } {
  const worker = new Worker(
    `const { parentPort, workerData } = require("node:worker_threads");
     const { readFileSync } = require("node:fs");
     const schedstat = workerData.loopPid === undefined
       ? undefined : "/proc/" + workerData.loopPid + "/task/" + workerData.loopPid + "/schedstat";
     const cpuMs = () => Number(readFileSync(schedstat, "utf8").split(" ")[0]) / 1e6;
     let running = true, worst = 0, worstAt = 0, count = 0, failures = 0, worstLoopCpu = 0, worstLoopCpuAt = 0;
     parentPort.on("message", () => { running = false; });
     (async () => {
       while (running) {
         const cpuBefore = schedstat ? cpuMs() : 0;
         const started = performance.now();
         try {
           const response = await fetch(workerData.url + "/healthz");
           await response.text();
           if (!response.ok) failures++;
         } catch { failures++; }
         const took = performance.now() - started;
         if (took > worst) { worst = took; worstAt = Date.now() - took; }
         if (schedstat) {
           const loopCpu = cpuMs() - cpuBefore;
           if (loopCpu > worstLoopCpu) { worstLoopCpu = loopCpu; worstLoopCpuAt = Date.now() - took; }
         }
         count++;
         await new Promise((resolve) => setTimeout(resolve, 10));
       }
       parentPort.postMessage({ worst, worstAt, count, failures,
         ...(schedstat ? { worstLoopCpu, worstLoopCpuAt } : {}) });
     })();`,
    { eval: true, workerData: { url, loopPid } },
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
