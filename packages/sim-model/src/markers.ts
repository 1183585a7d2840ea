/**
 * Progress markers the sim model writes into what it produces, so a scripted agent can tell how far it
 * got even after the runtime compacted its history:
 * - tool call ids `call_s<step>_<n>_<tag>` (step = the agent's global step number),
 * - a final answer ends with `[sim:done step=<step>]`,
 * - a sim summary opens with `<sim-summary v=1 step=<step> done=<step>>`.
 */
export const CALL_ID_PATTERN = /\bcall_s(\d+)_(\d+)/g;
export const DONE_PATTERN = /\[sim:done step=(\d+)\]/g;
export const SUMMARY_MARKER_PATTERN = /<sim-summary v=1 step=(\d+) done=(\d+)>/g;

/** Tool call id for call `n` of global step `step`; `tag` keeps ids of different agents apart. */
export function callId(step: number, n: number, tag: string): string {
  return `call_s${step}_${n}_${tag}`;
}

/** The marker a final answer ends with. */
export function doneMarker(step: number): string {
  return `[sim:done step=${step}]`;
}

/** The first line of a sim summary. */
export function summaryMarker(step: number, done: number): string {
  return `<sim-summary v=1 step=${step} done=${done}>`;
}

/** Highest step and highest finished step mentioned in a text. */
export function scanMarkers(text: string): { step: number; done: number } {
  let step = 0;
  let done = 0;
  for (const match of text.matchAll(CALL_ID_PATTERN)) step = Math.max(step, Number(match[1]));
  for (const match of text.matchAll(DONE_PATTERN)) {
    step = Math.max(step, Number(match[1]));
    done = Math.max(done, Number(match[1]));
  }
  for (const match of text.matchAll(SUMMARY_MARKER_PATTERN)) {
    step = Math.max(step, Number(match[1]));
    done = Math.max(done, Number(match[2]));
  }
  return { step, done };
}
