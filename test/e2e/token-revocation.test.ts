import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type FaultCluster, startFaultCluster } from "../faults/support/cluster.ts";
import { startProcess } from "./support/distributed-cluster.ts";
import { runLongrun } from "./support/run-command.ts";

// Two `longrun serve` processes (and one worker) over one libSQL file and one Redis: a token revoked
// through either server, or by `longrun token revoke` on the database, is refused by both at once.

let cluster: FaultCluster;
beforeAll(async () => {
  cluster = await startFaultCluster({ servers: 2, workers: 1 });
}, 120_000);
afterAll(async () => {
  await cluster?.close();
});

const serverUrl = (index: number) => cluster.servers[index]?.url ?? "";
const bearer = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

async function restStatus(index: number, token: string): Promise<number> {
  return (await fetch(`${serverUrl(index)}/v1/threads`, { headers: bearer(token) })).status;
}

async function gatewayStatus(index: number, token: string): Promise<number> {
  const response = await fetch(`${serverUrl(index)}/v1/chat/completions`, {
    method: "POST",
    headers: bearer(token),
    body: JSON.stringify({ model: "sim", messages: [{ role: "user", content: "Say hello." }] }),
  });
  await response.text();
  return response.status;
}

/** An open socket with the token, and how it ends: its close code, or the HTTP status that refused it. */
function openSocket(index: number, token: string) {
  const socket = new WebSocket(`${serverUrl(index).replace("http", "ws")}/v1/ws`, { headers: bearer(token) });
  const ended = new Promise<{ closeCode?: number; refused?: number }>((resolve) => {
    socket.once("unexpected-response", (_request, response) => resolve({ refused: response.statusCode }));
    socket.once("close", (code) => resolve({ closeCode: code }));
  });
  const opened = new Promise<boolean>((resolve) => {
    socket.once("open", () => resolve(true));
    void ended.then(() => resolve(false));
  });
  return { socket, opened, ended };
}

async function createToken(tenant: string): Promise<string> {
  const created = await runLongrun(["token", "create", "--tenant", tenant], cluster.env);
  expect(created.code, created.stderr).toBe(0);
  return created.stdout.trim();
}

async function keyIdOf(tenant: string): Promise<string> {
  const response = await fetch(`${serverUrl(0)}/v1/tokens`, { headers: bearer(cluster.token) });
  const { tokens } = (await response.json()) as { tokens: Array<{ id: string; tenantId: string }> };
  return tokens.find((key) => key.tenantId === tenant)?.id ?? "";
}

describe("token revocation across two servers sharing one store", () => {
  it("DELETE /v1/tokens/:id on one server: REST, gateway and sockets refuse the token on both", async () => {
    const token = await createToken("tenant-r");
    expect([await restStatus(0, token), await restStatus(1, token)]).toEqual([200, 200]);
    expect(await gatewayStatus(1, token)).toBe(200);
    // Tenant tokens are not admin tokens: the key routes are refused to them.
    const listed = await fetch(`${serverUrl(1)}/v1/tokens`, { headers: bearer(token) });
    expect(listed.status).toBe(403);
    const sockets = [openSocket(0, token), openSocket(1, token)];
    expect(await Promise.all(sockets.map((socket) => socket.opened))).toEqual([true, true]);

    const keyId = await keyIdOf("tenant-r");
    const revoked = await fetch(`${serverUrl(0)}/v1/tokens/${keyId}`, {
      method: "DELETE",
      headers: bearer(cluster.token),
    });
    expect(revoked.status).toBe(200);
    expect(((await revoked.json()) as { token: { revokedAt: number | null } }).token.revokedAt).toEqual(
      expect.any(Number),
    );

    expect([await restStatus(0, token), await restStatus(1, token)]).toEqual([401, 401]);
    expect([await gatewayStatus(0, token), await gatewayStatus(1, token)]).toEqual([401, 401]);
    // Open sockets on both servers are closed (4001), whichever server took the DELETE.
    expect(await Promise.all(sockets.map((socket) => socket.ended))).toEqual([
      { closeCode: 4001 },
      { closeCode: 4001 },
    ]);
    expect(await openSocket(1, token).ended).toEqual({ refused: 401 });
    const again = await fetch(`${serverUrl(1)}/v1/tokens/${keyId}`, {
      method: "DELETE",
      headers: bearer(cluster.token),
    });
    expect(again.status).toBe(409);
  });

  it("`longrun token revoke <id prefix>` on the database: both servers refuse the token", async () => {
    const token = await createToken("tenant-c");
    const socket = openSocket(1, token);
    expect(await socket.opened).toBe(true);
    const keyId = await keyIdOf("tenant-c");
    const list = await runLongrun(["token", "list"], cluster.env);
    expect(list.stdout).toMatch(new RegExp(`${keyId}\\s+tenant-c\\s+created\\s+…${token.slice(-4)}`));
    expect(list.stdout).not.toContain(token);

    const prefix = keyId.slice(0, -4);
    const revoke = await runLongrun(["token", "revoke", prefix], cluster.env);
    expect(revoke.code, revoke.stderr).toBe(0);
    expect(revoke.stdout).toContain(`revoked key ${keyId} (tenant tenant-c`);
    expect(await socket.ended).toEqual({ closeCode: 4001 });
    expect([await restStatus(0, token), await restStatus(1, token)]).toEqual([401, 401]);
    const twice = await runLongrun(["token", "revoke", keyId], cluster.env);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain("already revoked");
  });

  it("a server restarted with a new LONGRUN_TOKEN retires the previous one on every server", async () => {
    const previous = cluster.token;
    const socket = openSocket(0, previous);
    expect(await socket.opened).toBe(true);
    await cluster.servers[1]?.kill("SIGTERM");
    const rotated = `rotated-${previous}`;
    const { process: restarted, line } = await startProcess(
      "serve",
      { ...cluster.env, LONGRUN_TOKEN: rotated },
      /listening on /,
    );
    const url = /listening on (\S+)/.exec(line)?.[1] ?? "";
    try {
      expect(restarted.output.join("\n")).toMatch(
        /LONGRUN_TOKEN changed: the previous token \(key \S+\) is revoked/,
      );
      expect((await fetch(`${url}/v1/threads`, { headers: bearer(rotated) })).status).toBe(200);
      expect(await restStatus(0, rotated)).toBe(200);
      expect(await restStatus(0, previous)).toBe(401);
      expect(await socket.ended).toEqual({ closeCode: 4001 });
    } finally {
      await restarted.kill("SIGTERM");
    }
  });
});
