const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const MAX_CONTROL_RATIO = 0.1;
const SAMPLE_CHARS = 8_192;

/** True for characters that do not occur in ordinary text (C0 controls except tab, LF, FF, CR). */
function isControl(code: number): boolean {
  return (code < 32 && code !== 9 && code !== 10 && code !== 12 && code !== 13) || code === 127;
}

/** Whether text looks binary: a NUL, or a high share of control/replacement characters. */
export function looksBinaryText(text: string): boolean {
  if (text.includes("\u0000")) return true;
  const sample = text.slice(0, SAMPLE_CHARS);
  if (sample.length === 0) return false;
  let odd = 0;
  for (let index = 0; index < sample.length; index++) {
    const code = sample.charCodeAt(index);
    if (isControl(code) || code === 0xfffd) odd++;
  }
  return odd / sample.length > MAX_CONTROL_RATIO;
}

/** Decodes file bytes as text, or null when they are binary (NUL, invalid UTF-8, controls). */
export function decodeText(content: string | Uint8Array): string | null {
  if (typeof content === "string") return looksBinaryText(content) ? null : content;
  if (content.includes(0)) return null;
  let text: string;
  try {
    text = strictUtf8.decode(content);
  } catch {
    // Not valid UTF-8: binary content, which the caller shows as such.
    return null;
  }
  return looksBinaryText(text) ? null : text;
}
