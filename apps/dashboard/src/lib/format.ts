import type { MessageContent } from "@longrun/protocol";

/** Text of a message's content, images as a placeholder (protocol's contentText would pull zod into the bundle). */
export function textOf(content: MessageContent): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "[image]")).join("");
}

/** 12345 → "12.3k". */
export function formatTokens(tokens: number | null | undefined): string {
  if (tokens === null || tokens === undefined) return "–";
  if (Math.abs(tokens) >= 1_000_000) return `${(tokens / 1_000_000).toFixed(1)}M`;
  if (Math.abs(tokens) >= 10_000) return `${Math.round(tokens / 1000)}k`;
  if (Math.abs(tokens) >= 1000) return `${(tokens / 1000).toFixed(1)}k`;
  return String(tokens);
}

const wholeNumber = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** A billed-equivalent token figure in full, rounded: 12345.6 → "12,346". */
export function formatBilled(value: number): string {
  return wholeNumber.format(value);
}

/** A short "3 min ago" for a timestamp in ms. */
export function formatAgo(at: number | null | undefined, now: number = Date.now()): string {
  if (!at) return "–";
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 5) return "just now";
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return new Date(at).toLocaleDateString();
}

/** Milliseconds as "12s" / "3m 4s". */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
}

/** The first `limit` characters of a text and whether anything was cut. */
export function clip(text: string, limit: number): { text: string; clipped: boolean } {
  return text.length <= limit ? { text, clipped: false } : { text: text.slice(0, limit), clipped: true };
}

/** Tool-call arguments pretty-printed when they are JSON, as-is otherwise. */
export function prettyArguments(argumentsText: string): string {
  try {
    return JSON.stringify(JSON.parse(argumentsText), null, 2);
  } catch {
    return argumentsText;
  }
}

/** A status like "waiting_approval" as "waiting approval". */
export function humanStatus(status: string): string {
  return status.replaceAll("_", " ");
}

/** An error of any shape as a one-line message. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  return "unexpected error";
}

/** A long absolute path shortened to its part from `.longrun/` on (or its last two segments). */
export function shortPath(path: string): string {
  const marker = path.lastIndexOf(".longrun/");
  if (marker >= 0) return path.slice(marker);
  const parts = path.split("/").filter((part) => part.length > 0);
  return parts.length > 2 ? `…/${parts.slice(-2).join("/")}` : path;
}
