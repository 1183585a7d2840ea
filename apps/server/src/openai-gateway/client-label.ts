/** The client program behind a request, from its user agent ("codex", "opencode"), for the thread's label. */
export function clientLabel(userAgent: string | undefined): string | undefined {
  if (!userAgent) return undefined;
  const name = /^([a-z][a-z0-9-]*)/i.exec(userAgent)?.[1]?.toLowerCase();
  if (!name) return undefined;
  if (name.startsWith("codex")) return "codex";
  return name.slice(0, 32);
}
