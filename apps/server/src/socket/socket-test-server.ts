import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type ServerFrame, ServerFrame as ServerFrameSchema } from "@longrun/protocol";
import WebSocket from "ws";
import { MemorySocketDeps } from "./memory-socket-deps.ts";
import { type AttachSocketOptions, attachSocketServer, type SocketServer } from "./ws-adapter.ts";

/** A real HTTP server with the gateway attached to in-memory deps; for tests. */
export interface GatewayTestServer {
  baseUrl: string;
  wsUrl: string;
  memory: MemorySocketDeps;
  /** Replaceable, so a test can restart the gateway on the same HTTP server. */
  gateway: SocketServer;
  server: Server;
  /** Destroys every TCP connection (a network drop, as the client sees it). */
  dropConnections(): void;
  close(): Promise<void>;
}

/** Starts a gateway test server on an ephemeral port. */
export async function startGatewayTestServer(options: AttachSocketOptions = {}): Promise<GatewayTestServer> {
  const memory = new MemorySocketDeps();
  // Stands in for the REST API only as far as the SDK's token probe needs: 401 for unknown tokens.
  const server = createServer((request, response) => {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    const known = token !== undefined && memory.tokens.has(token);
    const body = known
      ? { error: { code: "not_found", message: "not served here" } }
      : { error: { code: "unauthorized", message: "unknown token" } };
    response.writeHead(known ? 404 : 401, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const gateway = attachSocketServer(server, memory.deps(), options);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const testServer: GatewayTestServer = {
    baseUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/v1/ws`,
    memory,
    gateway,
    server,
    dropConnections: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      await testServer.gateway.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return testServer;
}

/** A raw protocol client that records every frame it receives; it never acknowledges anything. */
export interface RawClient {
  socket: WebSocket;
  frames: ServerFrame[];
  send(frame: unknown): void;
  sendText(text: string): void;
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens a raw ws connection and resolves once it is open. */
export async function openRawClient(
  url: string,
  headers?: Record<string, string>,
  options: WebSocket.ClientOptions = {},
): Promise<RawClient> {
  const socket = new WebSocket(url, { ...options, ...(headers ? { headers } : {}) });
  const frames: ServerFrame[] = [];
  socket.on("message", (data) => {
    frames.push(ServerFrameSchema.parse(JSON.parse(data.toString())));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() }));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return {
    socket,
    frames,
    send: (frame) => socket.send(JSON.stringify(frame)),
    sendText: (text) => socket.send(text),
    closed,
  };
}
