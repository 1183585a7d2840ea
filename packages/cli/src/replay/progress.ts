import type { ReplayProgress } from "./replay.ts";

/** Where progress goes: a stream that may be a terminal. */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

const BAR_WIDTH = 24;
/** Plain (non-terminal) output prints a line at most every this many percent. */
const PLAIN_STEP_PERCENT = 10;

/**
 * A progress reporter: on a terminal one line redrawn in place (bar, percent, call points,
 * compactions); elsewhere (CI logs, pipes) a plain line every 10 % so logs stay short.
 */
export function createProgressReporter(stream: ProgressStream, label: string) {
  let lastPlainPercent = -PLAIN_STEP_PERCENT;
  let drawn = false;
  const describe = (progress: ReplayProgress, percent: number) => {
    const exhausted = progress.exhausted > 0 ? `, ${progress.exhausted} exhausted` : "";
    return `${percent.toString().padStart(3)}%  call points ${progress.done}/${progress.total}, compactions ${progress.compactions}${exhausted}`;
  };
  return {
    update(progress: ReplayProgress): void {
      const percent = progress.total === 0 ? 100 : Math.floor((progress.done / progress.total) * 100);
      if (stream.isTTY) {
        const filled = Math.round((percent / 100) * BAR_WIDTH);
        const bar = `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}]`;
        const line = `${label} ${bar} ${describe(progress, percent)}`;
        const width = stream.columns ?? 120;
        // \r + clear-to-end redraws the same line; cut to the width so it never wraps.
        stream.write(`\r${line.slice(0, Math.max(20, width - 1))}\u001b[K`);
        drawn = true;
        return;
      }
      if (percent - lastPlainPercent >= PLAIN_STEP_PERCENT || progress.done === progress.total) {
        lastPlainPercent = percent;
        stream.write(`${label}: ${describe(progress, percent)}\n`);
      }
    },
    /** Ends the redrawn line so later output starts on a fresh one. */
    finish(): void {
      if (drawn) stream.write("\n");
      drawn = false;
    },
  };
}
