import { useCallback, useRef, useState } from "react";
import { useStore } from "../state/store-context.tsx";

/**
 * An error from an action (a click that called the API), shown until the next attempt or until the live
 * connection comes back: "Failed to fetch" from before a reconnect is about a connection that is gone.
 */
export function useActionError(): [string | null, (text: string | null) => void] {
  const { state } = useStore();
  const epoch = useRef(state.connectionEpoch);
  epoch.current = state.connectionEpoch;
  const [error, setError] = useState<{ text: string; epoch: number } | null>(null);
  const set = useCallback(
    (text: string | null) => setError(text === null ? null : { text, epoch: epoch.current }),
    [],
  );
  return [error && error.epoch === state.connectionEpoch ? error.text : null, set];
}
