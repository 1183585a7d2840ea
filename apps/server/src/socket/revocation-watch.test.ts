import { afterEach, describe, expect, it } from "vitest";
import { type GatewayTestServer, openRawClient, startGatewayTestServer } from "./socket-test-server.ts";
import { CLOSE_CODES } from "./types.ts";

let server: GatewayTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("a revoked token's open sockets", () => {
  it("are closed with 4001 and a closing frame; other tokens' sockets stay open", async () => {
    server = await startGatewayTestServer({ revocationCheckMs: 50 });
    server.memory.addToken("token-a", "tenant-a");
    server.memory.addToken("token-b", "tenant-a");
    const revoked = await openRawClient(server.wsUrl, { authorization: "Bearer token-a" });
    const kept = await openRawClient(server.wsUrl, { authorization: "Bearer token-b" });

    server.memory.tokens.delete("token-a");
    expect(await revoked.closed).toEqual({ code: CLOSE_CODES.tokenRevoked, reason: "token revoked" });
    expect(revoked.frames).toContainEqual({ type: "closing", reason: "token revoked" });

    // The other key's socket still answers: a ping sent after the revocation is answered.
    kept.send({ type: "ping", at: 7 });
    await expect
      .poll(() => kept.frames.find((frame) => frame.type === "pong"), { timeout: 5_000 })
      .toEqual({ type: "pong", at: 7 });
    expect(kept.socket.readyState).toBe(kept.socket.OPEN);

    // A new connection with the revoked token is refused before the upgrade.
    await expect(openRawClient(server.wsUrl, { authorization: "Bearer token-a" })).rejects.toThrow(/401/);
    kept.socket.close();
  });
});
