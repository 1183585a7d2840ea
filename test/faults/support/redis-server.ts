import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { Redis } from "ioredis";

/** A redis-server of the test's own on a free loopback port, which the test may kill and restart. */
export interface OwnRedis {
  url: string;
  port: number;
  /** SIGKILLs the server (its data goes with it: nothing is saved). */
  kill(): Promise<void>;
  /** Starts an empty server on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  server.close();
  await once(server, "close");
  return port;
}

/** Starts redis-server (Debian's, on PATH) with no persistence on a free port. */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      {
        stdio: "ignore",
      },
    );
    // Ready when it answers PING.
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    probe.on("error", () => undefined);
    try {
      for (let attempt = 0; attempt < 200; attempt++) {
        const answer = await probe.ping().catch(() => null);
        if (answer === "PONG") return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`redis-server on port ${port} did not answer`);
    } finally {
      probe.disconnect();
    }
  };
  const kill = async () => {
    const current = child;
    child = null;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = once(current, "exit");
    current.kill("SIGKILL");
    await exited;
  };
  await start();
  return { url, port, kill, start, close: kill };
}
