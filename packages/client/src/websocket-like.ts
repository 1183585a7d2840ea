/** Method-style signature so handler properties stay assignable across WebSocket implementations. */
type Handler<Event> = { bivariance(event: Event): void }["bivariance"];

/** The part of the WHATWG WebSocket the SDK uses; the browser's and the `ws` package's both fit. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: Handler<unknown> | null;
  onmessage: Handler<{ data: unknown }> | null;
  onclose: Handler<{ code: number; reason: string }> | null;
  onerror: Handler<unknown> | null;
}

/** A WebSocket constructor: `globalThis.WebSocket` in browsers, `WebSocket` from `ws` in Node 20. */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** readyState value of an open socket (the same in every implementation). */
export const SOCKET_OPEN = 1;
