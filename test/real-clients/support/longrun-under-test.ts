import type { SimModelServer } from "@longrun/sim-model";
import { type EmbeddedTestInstance, startGatewayOverSim } from "../../e2e/support/embedded-instance.ts";
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
  const gateway = await startGatewayOverSim({ logLimit: 5_000, logBodies: true });
  const proxy = await startRecordingProxy(gateway.longrun.instance.url);
  return {
    sim: gateway.sim,
    longrun: gateway.longrun,
    url: proxy.url,
    requests: proxy.requests,
    async close() {
      await proxy.close();
      await gateway.close();
    },
  };
}
