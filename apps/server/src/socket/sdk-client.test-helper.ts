import { createClient, type LongrunClient } from "@longrun/client";
import WebSocket from "ws";
import type { GatewayTestServer } from "./socket-test-server.ts";

/** An SDK client of the test server for `token`, reconnecting quickly. */
export function testClient(server: Pick<GatewayTestServer, "baseUrl">, token: string): LongrunClient {
  return createClient({ baseUrl: server.baseUrl, token, WebSocket, reconnect: { initialDelayMs: 20 } });
}
