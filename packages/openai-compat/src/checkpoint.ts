import type { NewMessage } from "@longrun/protocol";
import { textOf } from "./content.ts";

const MARKER = /\[longrun checkpoint (\d+)\]/;

/**
 * The line that opens longrun's answer to a client's own compaction request. The client keeps that
 * answer in the history it rebuilds, so a later request says where in the log it continues: after
 * fact `seq`.
 */
export function checkpointMarker(seq: number): string {
  return `[longrun checkpoint ${seq}]`;
}

/**
 * Splits a rebuilt history at the newest checkpoint: the items up to and including it are the
 * client's condensed view (already in the log as facts up to `afterSeq`); the rest is new.
 */
export function splitAtCheckpoint(
  items: readonly NewMessage[],
): { afterSeq: number; rest: NewMessage[] } | null {
  for (let index = items.length - 1; index >= 0; index--) {
    const match = MARKER.exec(textOf(items[index]?.content));
    if (match) return { afterSeq: Number(match[1]), rest: items.slice(index + 1) };
  }
  return null;
}
