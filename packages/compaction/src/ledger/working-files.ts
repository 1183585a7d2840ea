import type { Ledger } from "@longrun/protocol";

/** A file the agent was working on, and the step it last touched it. */
export interface WorkingFile {
  path: string;
  step: number | null;
}

/**
 * What the agent was working on, newest first: files it changed (still there) and files it read,
 * one entry per path. The ledger and restoration share this view: the ledger lists them, restoration
 * re-reads the first few.
 */
export function workingFiles(ledger: Ledger, limit = Number.POSITIVE_INFINITY): WorkingFile[] {
  const latest = new Map<string, number>();
  const note = (path: string, step: number | null) => {
    const at = step ?? -1;
    if ((latest.get(path) ?? Number.NEGATIVE_INFINITY) < at) latest.set(path, at);
  };
  for (const file of ledger.changedFiles)
    if (file.action !== "deleted" && file.action !== "moved") note(file.path, file.step);
  for (const file of ledger.readFiles) note(file.path, file.step);
  return [...latest.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, limit)
    .map(([path, step]) => ({ path, step: step < 0 ? null : step }));
}
