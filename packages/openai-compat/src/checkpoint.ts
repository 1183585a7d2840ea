import type { NewMessage } from "@longrun/protocol";
import { textOf } from "./content.ts";

const MARKER = /\[longrun checkpoint (-?\d+)(?: thread ([0-9a-f-]{36}))?\]/;

/** Where a client's rebuilt history says it continues: after fact `afterSeq` of thread `threadId`. */
export interface Checkpoint {
  afterSeq: number;
  /** Absent in markers written before threads were named in them. */
  threadId?: string;
}

/**
 * The line that opens longrun's answer to a client's own compaction request. The client keeps that
 * answer in the history it rebuilds, so a later request says where in the log it continues: after
 * fact `seq` of the thread named (a client without a session id is found again by it).
 */
export function checkpointMarker(seq: number, threadId?: string): string {
  return `[longrun checkpoint ${seq}${threadId ? ` thread ${threadId}` : ""}]`;
}

/** The newest checkpoint marker in a text (a transcript the client wrote out), if any. */
export function checkpointIn(text: string): Checkpoint | null {
  const matches = [...text.matchAll(new RegExp(MARKER.source, "g"))];
  const last = matches.at(-1);
  if (!last) return null;
  return { afterSeq: Number(last[1]), ...(last[2] ? { threadId: last[2] } : {}) };
}

/**
 * Splits a rebuilt history at the newest checkpoint: the items up to and including it are the
 * client's condensed view (already in the log as facts up to `afterSeq`); the rest is new.
 */
export function splitAtCheckpoint(
  items: readonly NewMessage[],
): (Checkpoint & { rest: NewMessage[] }) | null {
  for (let index = items.length - 1; index >= 0; index--) {
    const found = checkpointIn(textOf(items[index]?.content));
    if (found) return { ...found, rest: items.slice(index + 1) };
  }
  return null;
}
