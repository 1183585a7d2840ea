/** `longrun replay` (DESIGN §11). */
export async function runReplayCommand(_args: string[]): Promise<number> {
  console.error("longrun replay: implemented by packages/cli/src/replay");
  return 2;
}
