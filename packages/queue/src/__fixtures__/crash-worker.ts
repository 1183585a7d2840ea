// A worker process for the crash test: it takes an agent.step job, reports it on stdout, and hangs
// until the test SIGKILLs it. Arguments: <redis url> <prefix> <lock duration ms> <stalled interval ms>.
import { createBullmqQueue } from "../bullmq-queue.ts";

const [url, prefix, lockDuration, stalledInterval] = process.argv.slice(2);
if (!url || !prefix || !lockDuration || !stalledInterval) {
  throw new Error("usage: crash-worker <redis url> <prefix> <lock ms> <stalled interval ms>");
}

const queue = createBullmqQueue({
  connection: url,
  prefix,
  lockDurationMs: Number(lockDuration),
  stalledIntervalMs: Number(stalledInterval),
});
await queue.process({
  "agent.step": (_payload, context) => {
    process.stdout.write(`started ${context.jobId}\n`);
    // Never settles: the job is mid-flight when the process dies.
    return new Promise(() => {});
  },
});
process.stdout.write("ready\n");
