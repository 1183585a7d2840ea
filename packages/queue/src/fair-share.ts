/**
 * Fair share between tenants, the same rule in both adapters: a job's priority is 1 + the number of
 * jobs of its tenant already queued (waiting or delayed, never taken yet), and workers take the lowest
 * number first (FIFO within one number). A tenant with 200 queued steps puts its next one at 201, while
 * a tenant with none queued gets 1: its step runs as soon as a worker is free, whatever the other's
 * backlog. Two busy tenants interleave, since each one's numbers grow with its own backlog only.
 */

/** BullMQ's lowest priority (its largest number, 2^21 - 1). */
const LOWEST_PRIORITY = 2_097_151;

/** The priority of a job whose tenant already has `queuedOfTenant` jobs queued. */
export function fairPriority(queuedOfTenant: number): number {
  return Math.min(LOWEST_PRIORITY, 1 + Math.max(0, queuedOfTenant));
}
