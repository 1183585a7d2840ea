/** One server-sent event of a streamed answer (Responses and Anthropic name each event). */
export interface SseEvent {
  event: string;
  data: unknown;
}

/** A handler result of the Responses and Anthropic endpoints, independent of the HTTP library. */
export type FormatResult =
  | { status: number; headers: Record<string, string>; json: unknown }
  | { status: 200; headers: Record<string, string>; events: SseEvent[] };

/** True for a plain record (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Splits a text into pieces of at most `size` characters (stream deltas). */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let index = 0; index < text.length; index += size) out.push(text.slice(index, index + size));
  return out;
}
