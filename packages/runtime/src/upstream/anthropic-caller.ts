/**
 * The Anthropic Messages caller (anthropic-call.ts), loaded on the first call that needs it: its SDK is
 * about a quarter of the modules a server would load at start, for a format most deployments never use.
 */
export function anthropicCaller() {
  return import("./anthropic-call.ts");
}
