import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EmbeddedInstance, loadConfig, startEmbedded } from "@longrun/cli";
import { type SimModelServer, startSimModel } from "@longrun/sim-model";

/** One embedded longrun server on a temp data dir, restartable on the same dir and port. */
export interface BrowserServer {
  readonly dataDir: string;
  readonly sim: SimModelServer;
  /** The running instance (changes after a restart). */
  instance(): EmbeddedInstance;
  /** Stops the instance; the data dir and port are kept for `start`. */
  stop(): Promise<void>;
  /** Starts a new instance on the same data dir and the same port. */
  start(): Promise<EmbeddedInstance>;
  close(): Promise<void>;
}

/**
 * Starts the sim model in this process (with a small per-answer delay, so the page sees runs happen live)
 * and an embedded server that talks to it over HTTP, like `npm start` does with its own sim model.
 */
export async function startBrowserServer(options: { simDelayMs?: number } = {}): Promise<BrowserServer> {
  const dataDir = await mkdtemp(join(tmpdir(), "longrun-browser-"));
  const sim = await startSimModel({ port: 0, delayMs: options.simDelayMs ?? 20 });
  let port = 0;
  let current: EmbeddedInstance | null = null;
  const start = async () => {
    const config = loadConfig({
      PORT: String(port),
      LONGRUN_DATA_DIR: dataDir,
      OPENAI_BASE_URL: sim.baseURL,
      OPENAI_API_KEY: "sim",
    });
    current = await startEmbedded(config);
    port = Number(new URL(current.url).port);
    return current;
  };
  await start();
  return {
    dataDir,
    sim,
    instance() {
      if (!current) throw new Error("the server is stopped");
      return current;
    },
    async stop() {
      const running = current;
      current = null;
      await running?.close();
    },
    start,
    async close() {
      const running = current;
      current = null;
      await running?.close();
      await sim.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
