export { type RunningWorker, startWorker, type WorkerOptions } from "./start-worker.ts";
