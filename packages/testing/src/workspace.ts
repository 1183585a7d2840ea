import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface TempWorkspace {
  /** Real path of the folder (symlinks resolved, so containment checks compare like with like). */
  dir: string;
  cleanup(): Promise<void>;
}

/** A small project to explore: sources, docs and a config, so scripted agents have real files to read. */
export const SAMPLE_PROJECT: Record<string, string> = {
  "README.md": "# inventory\n\nA small inventory service. See src/ for the code and docs/ for the design.\n",
  "package.json": JSON.stringify({ name: "inventory", version: "1.0.0", type: "module" }, null, 2),
  "src/index.ts": Array.from(
    { length: 60 },
    (_, line) => `export const item${line} = { id: ${line}, name: "item-${line}", stock: ${line * 3} };`,
  ).join("\n"),
  "src/stock.ts": Array.from(
    { length: 80 },
    (_, line) =>
      `// TODO(stock-${line}): reconcile stock level ${line} against the ledger before shipping\nexport function level${line}(count: number) { return count - ${line}; }`,
  ).join("\n"),
  "src/ledger.ts": Array.from(
    { length: 70 },
    (_, line) =>
      `export function entry${line}(amount: number): number { return amount * ${line + 1}; } // ledger rule ${line}`,
  ).join("\n"),
  "docs/design.md": Array.from(
    { length: 50 },
    (_, line) =>
      `Section ${line}: the inventory keeps a ledger of every stock movement and reconciles it nightly.`,
  ).join("\n"),
  "docs/ops.md": Array.from(
    { length: 40 },
    (_, line) => `Runbook step ${line}: check the queue depth, then the ledger lag, then restart the worker.`,
  ).join("\n"),
  "config/settings.json": JSON.stringify({ region: "eu", replicas: 3, ledger: { nightly: true } }, null, 2),
};

/** A temporary workspace folder, optionally filled with files (path → content). */
export async function createTempWorkspace(
  files: Record<string, string> = SAMPLE_PROJECT,
): Promise<TempWorkspace> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "longrun-ws-")));
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
