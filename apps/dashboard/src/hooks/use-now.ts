import { useEffect, useState } from "react";

/** The current time, re-read every `everyMs`: for "12s ago" and elapsed figures that must keep moving. */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
