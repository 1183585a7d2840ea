/**
 * Options for `vi.waitFor` on an event (a frame, a pub/sub message, a job's state): a hang guard, not a
 * budget. vitest's default is 1 s, a wall-clock limit that a loaded machine misses while the event is
 * still on its way; this fails only a wait that never ends, inside the packages' 30 s test timeout.
 */
export const EVENT_WAIT = { timeout: 20_000 } as const;
