import { useState } from "react";
import { errorText } from "../lib/format.ts";

/** Where a fork or rewind starts: after a message, or at a compaction (with it in force). */
export type ForkPoint = { atMessageId: string } | { atCompactionId: string };

/** Calls the fork or rewind API, then opens the new thread. */
export type TimeTravel = (point: ForkPoint, rewind: boolean) => Promise<void>;

/**
 * "Fork here" and "Rewind here" on a message or a compaction notice of the root agent: a fork is a new
 * thread that continues from this point (this one is unchanged); a rewind also points this thread to it,
 * so the next message sent here continues there.
 */
export function FromHere({ point, travel, what }: { point: ForkPoint; travel: TimeTravel; what: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const go = async (rewind: boolean) => {
    setBusy(true);
    setError(null);
    try {
      await travel(point, rewind);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="from-here">
      <button
        type="button"
        className="link small"
        data-testid="fork-here"
        disabled={busy}
        title={`A new thread that continues from ${what}; this one stays as it is`}
        aria-label={`Fork here: a new thread from ${what}`}
        onClick={() => void go(false)}
      >
        Fork here
      </button>
      <button
        type="button"
        className="link small"
        data-testid="rewind-here"
        disabled={busy}
        title={`Continue from ${what}: this thread's next message goes to a new thread that starts there (nothing is deleted)`}
        aria-label={`Rewind here: this thread back to ${what}`}
        onClick={() => void go(true)}
      >
        Rewind here
      </button>
      {error && (
        <span className="error small" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
