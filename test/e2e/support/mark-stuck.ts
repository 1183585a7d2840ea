import { loadConfig, openLog } from "@longrun/cli";

/**
 * Marks a run stuck in the data dir's log, as the reconciler leaves a run that nothing moves (a second
 * connection to the libSQL file the server holds, closed before returning).
 */
export async function markRunStuck(dataDir: string, runId: string, reason: string): Promise<void> {
  const store = await openLog(loadConfig({ LONGRUN_DATA_DIR: dataDir }));
  try {
    await store.runs.update(runId, {
      status: "stuck",
      finishedAt: null,
      error: { code: "stuck", message: reason },
    });
  } finally {
    await store.close();
  }
}
