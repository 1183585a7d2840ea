import { type SimModelServer, startSimModel } from "@longrun/sim-model";
import { type EmbeddedTestInstance, startEmbeddedForTest } from "../../e2e/support/embedded-instance.ts";
import { type RecordedRequest, startRecordingProxy } from "./recording-proxy.ts";

/** Embedded longrun whose upstream is a strict sim model, with a recording proxy in front of it. */
export interface LongrunUnderTest {
  sim: SimModelServer;
  longrun: EmbeddedTestInstance;
  /** Where clients point their base URL (the proxy). */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startLongrunUnderTest(): Promise<LongrunUnderTest> {
  const sim = await startSimModel({ logLimit: 5_000, logBodies: true });
  const longrun = await startEmbeddedForTest({ OPENAI_BASE_URL: sim.baseURL, OPENAI_API_KEY: "sim" });
  const proxy = await startRecordingProxy(longrun.instance.url);
  return {
    sim,
    longrun,
    url: proxy.url,
    requests: proxy.requests,
    async close() {
      await proxy.close();
      await longrun.close();
      await sim.close();
    },
  };
}
