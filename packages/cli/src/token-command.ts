import { openLog } from "./compose.ts";
import type { Config } from "./config/load-config.ts";

/** `longrun token create`: mints a token for a tenant and prints it once. */
export async function createTokenCommand(config: Config, tenantId: string): Promise<string> {
  const store = await openLog(config);
  try {
    const { token } = await store.apiKeys.create(tenantId);
    return token;
  } finally {
    await store.close();
  }
}
