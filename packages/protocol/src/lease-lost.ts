import { LongrunError } from "./errors.ts";

/**
 * The one form of "lease lost": another holder took the agent (a higher fencing token wrote, or the
 * lease could not be renewed). A `conflict` that no retry of the same holder can fix; `details` say why.
 */
export function leaseLost(message: string, details: Record<string, unknown> = {}): LongrunError {
  return new LongrunError("conflict", `lease lost: ${message}`, { ...details, leaseLost: true });
}

/** True for a lease-lost error from any package (matched by its data, not by its message). */
export function isLeaseLost(error: unknown): error is LongrunError {
  return (
    LongrunError.isInstance(error) &&
    error.code === "conflict" &&
    typeof error.details === "object" &&
    error.details !== null &&
    (error.details as { leaseLost?: unknown }).leaseLost === true
  );
}
