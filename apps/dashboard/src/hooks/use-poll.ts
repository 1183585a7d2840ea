import { useEffect, useState } from "react";
import { errorText } from "../lib/format.ts";

export interface PollState<Value> {
  value: Value | null;
  error: string | null;
  loadedAt: number | null;
}

/** Calls `load` now and every `intervalMs` while mounted; keeps the last good value through errors. */
export function usePoll<Value>(load: () => Promise<Value>, intervalMs: number): PollState<Value> {
  const [state, setState] = useState<PollState<Value>>({ value: null, error: null, loadedAt: null });
  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const tick = async () => {
      try {
        const value = await load();
        if (!cancelled) setState({ value, error: null, loadedAt: Date.now() });
      } catch (error) {
        if (!cancelled) setState((previous) => ({ ...previous, error: errorText(error) }));
      }
      if (!cancelled) timer = setTimeout(() => void tick(), intervalMs);
    };
    void tick();
    return () => {
      cancelled = true;
      if (timer) clearTimeout(timer);
    };
  }, [load, intervalMs]);
  return state;
}
