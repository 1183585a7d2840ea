import type { ModelProfile } from "@longrun/protocol";

/** Default cap on a tool result, in characters. */
export const DEFAULT_OUTPUT_LIMIT = 16_000;

/**
 * A tool result may take at most ~15 % of the window (and 16,000 characters): one read must never be
 * larger than what a compaction can keep.
 */
export function outputLimitFor(profile: Pick<ModelProfile, "maxInputTokens">): number {
  const window = profile.maxInputTokens;
  if (!window) return DEFAULT_OUTPUT_LIMIT;
  return Math.max(1_000, Math.min(DEFAULT_OUTPUT_LIMIT, Math.floor(window * 0.15 * 3.5)));
}

/**
 * Cut text longer than `limit`, keeping its head and tail around a marker that says how much was cut.
 * The result never exceeds `limit` characters (for limits above the marker's length).
 */
export function limitOutput(text: string, limit: number = DEFAULT_OUTPUT_LIMIT): string {
  if (text.length <= limit) return text;
  const marker = (cut: number) => `\n\n[output cut: ${cut} of ${text.length} characters omitted]\n\n`;
  // The marker's length depends on the number it prints; the widest possible number bounds it.
  const keep = Math.max(0, limit - marker(text.length).length);
  // The tail usually holds the verdict (errors, exit status), so it keeps a good share.
  const head = Math.ceil(keep * 0.6);
  const tail = keep - head;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}${marker(cut)}${tail > 0 ? text.slice(text.length - tail) : ""}`;
}
