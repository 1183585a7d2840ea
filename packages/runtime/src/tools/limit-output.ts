/** Default cap on a tool result, in characters. */
export const DEFAULT_OUTPUT_LIMIT = 16_000;

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
