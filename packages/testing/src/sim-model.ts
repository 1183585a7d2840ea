import { type SimModelOptions, type SimModelServer, startSimModel } from "@longrun/sim-model";

/** What tests get: the running sim model plus ready-made options for the openai client. */
export interface TestSimModel {
  server: SimModelServer;
  /** Pass as `baseURL` to `new OpenAI(...)` (ends in `/v1`). */
  baseURL: string;
  /** Any non-empty key; the sim ignores it but the openai client requires one. */
  apiKey: string;
  /** `new OpenAI(sim.clientOptions)`: no client-side retries, so tests see every fault. */
  clientOptions: { baseURL: string; apiKey: string; maxRetries: number };
  close(): Promise<void>;
}

/**
 * Start a sim model on a free port for a test file (`beforeAll`), and `close()` it in `afterAll`.
 * Options are the sim model's server config (window, default steps, faults, reasoning, ...).
 */
export async function startTestSimModel(options: SimModelOptions = {}): Promise<TestSimModel> {
  const server = await startSimModel({ port: 0, logLimit: 2000, ...options });
  const apiKey = "sim-test-key";
  return {
    server,
    baseURL: server.baseURL,
    apiKey,
    clientOptions: { baseURL: server.baseURL, apiKey, maxRetries: 0 },
    close: () => server.close(),
  };
}
