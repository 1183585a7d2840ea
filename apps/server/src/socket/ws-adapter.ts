import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import { bearerToken } from "../bearer-token.ts";
import { LiveFanout } from "./live-fanout.ts";
import { type KeyedConnection, watchRevocations } from "./revocation-watch.ts";
import { createSession, type SocketSession } from "./session.ts";
import { CLOSE_CODES, type SocketDeps, type SocketOptions } from "./types.ts";
import { WriteBatch } from "./write-batch.ts";
import { CLOSE_GRACE_MS, WsTransport } from "./ws-transport.ts";

/** The gateway's dependencies plus bearer-token authentication. */
export interface SocketAdapterDeps extends SocketDeps {
  /** Resolves a bearer token to its tenant and key, or null when the token is unknown or revoked. */
  authenticate(token: string): Promise<{ tenantId: string; keyId: string } | null>;
  /** Which of these keys are still valid (checked against the shared store). */
  liveKeys(ids: readonly string[]): Promise<Set<string>>;
}

export interface AttachSocketOptions extends Partial<SocketOptions> {
  /** URL path of the socket endpoint. */
  path?: string;
  /** Largest client frame accepted, in bytes. */
  maxPayloadBytes?: number;
  /** How often open connections' keys are checked for revocation. Default 1 s. */
  revocationCheckMs?: number;
}

/** A running gateway bound to an HTTP server. */
export interface SocketServer {
  /** Closes every connection (with a `closing` frame) and stops accepting upgrades. */
  close(): Promise<void>;
  /** Number of open connections. */
  clients(): number;
}

/** Serves the WebSocket protocol at `/v1/ws` on an existing HTTP server. */
export function attachSocketServer(
  httpServer: Server,
  deps: SocketAdapterDeps,
  options: AttachSocketOptions = {},
): SocketServer {
  const path = options.path ?? "/v1/ws";
  // No extensions (perMessageDeflate stays off): WsTransport writes prepared frames to the socket directly.
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: options.maxPayloadBytes ?? 4 * 1024 * 1024,
  });
  const sessions = new Map<WebSocket, SocketSession>();
  const keys = new Map<WebSocket, KeyedConnection>();
  const batch = new WriteBatch();
  const fanout = new LiveFanout(deps.live);

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname !== path) {
      // Leave other upgrade paths to other listeners; refuse them only when nobody else is listening.
      if (httpServer.listenerCount("upgrade") > 1) return;
      // Codex tries the Responses WebSocket transport when its provider says it supports it: a prompt
      // refusal that names the setting, so it falls back to HTTP at once rather than timing out.
      if (url.pathname === RESPONSES_PATH) reject(socket, 404, "Not Found", RESPONSES_OVER_HTTP_ONLY);
      else reject(socket, 404, "Not Found");
      return;
    }
    socket.on("error", () => socket.destroy());
    const token = bearerToken(request.headers.authorization) ?? url.searchParams.get("token");
    const authenticated = token ? deps.authenticate(token) : Promise.resolve(null);
    authenticated.then(
      (identity) => {
        if (!identity) return reject(socket, 401, "Unauthorized");
        if (socket.destroyed) return;
        wss.handleUpgrade(request, socket, head, (ws) => accept(ws, socket, identity));
      },
      () => reject(socket, 500, "Internal Server Error"),
    );
  };

  const accept = (ws: WebSocket, socket: Duplex, identity: { tenantId: string; keyId: string }): void => {
    const session = createSession({
      tenantId: identity.tenantId,
      deps,
      options,
      fanout,
      transport: new WsTransport(ws, socket, batch),
    });
    sessions.set(ws, session);
    keys.set(ws, {
      keyId: identity.keyId,
      revoke: () => session.shutdown(CLOSE_CODES.tokenRevoked, "token revoked"),
    });
    ws.on("pong", () => session.alive());
    ws.on("message", (data, isBinary) => {
      session.receive(isBinary ? "" : rawText(data));
    });
    ws.on("close", () => {
      sessions.delete(ws);
      keys.delete(ws);
      session.dispose();
    });
    ws.on("error", () => ws.terminate());
  };

  httpServer.on("upgrade", onUpgrade);
  const stopWatching = watchRevocations(
    () => keys.values(),
    deps.liveKeys,
    options.revocationCheckMs ?? 1_000,
  );

  return {
    clients: () => sessions.size,
    close: async () => {
      httpServer.off("upgrade", onUpgrade);
      stopWatching();
      const closing = [...sessions.keys()].map(
        (ws) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === ws.CLOSED) return resolve();
            ws.once("close", () => resolve());
            sessions.get(ws)?.shutdown(CLOSE_CODES.goingAway, "server shutting down");
            // A peer that never completes the closing handshake must not hold shutdown hostage.
            setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
          }),
      );
      await Promise.all(closing);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

function rawText(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return data.toString("utf8");
}

/** The Responses API path, which Codex also tries as a WebSocket. */
const RESPONSES_PATH = "/v1/responses";
const RESPONSES_OVER_HTTP_ONLY =
  "longrun serves the Responses API over HTTP only (POST /v1/responses): in Codex, set `supports_websockets = false` on the model provider";

function reject(socket: Duplex, status: number, text: string, message = text): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({
    error: {
      code: status === 401 ? "unauthorized" : status === 404 ? "not_found" : "internal",
      message,
    },
  });
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
