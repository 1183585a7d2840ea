import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SpawnAgentSpec, TodoItem } from "@longrun/protocol";
import type { ToolContext } from "./types.ts";

/** A temporary workspace (and a sibling folder outside it) plus a recording ToolContext, for tests. */
export interface TestWorkspace {
  dir: string;
  outside: string;
  context: ToolContext;
  reads: string[];
  /** What the file tools reported changing (recordChange), in order. */
  changes: { path: string; before: Uint8Array | null | undefined; after: Uint8Array | null }[];
  todos: TodoItem[][];
  plans: string[];
  spawns: { specs: SpawnAgentSpec[]; callId: string }[];
  write(relative: string, content: string | Uint8Array): Promise<string>;
  cleanup(): Promise<void>;
}

/** Create a temporary workspace; `spawnOutcome` is what context.spawnAgents answers. */
export async function createTestWorkspace(
  spawnOutcome: { parked: true } | { reports: string } = { parked: true },
): Promise<TestWorkspace> {
  const base = await mkdtemp(path.join(tmpdir(), "longrun-tools-"));
  const dir = path.join(base, "workspace");
  const outside = path.join(base, "outside");
  await mkdir(dir);
  await mkdir(outside);
  const reads: string[] = [];
  const changes: { path: string; before: Uint8Array | null | undefined; after: Uint8Array | null }[] = [];
  const todos: TodoItem[][] = [];
  const plans: string[] = [];
  const spawns: { specs: SpawnAgentSpec[]; callId: string }[] = [];
  return {
    dir,
    outside,
    reads,
    changes,
    todos,
    plans,
    spawns,
    context: {
      workspaceDir: dir,
      recordRead: async (file) => void reads.push(file),
      recordChange: (file, before, after) => void changes.push({ path: file, before, after }),
      setTodos: async (list) => void todos.push(list),
      setPlan: async (plan) => void plans.push(plan),
      spawnAgents: async (specs, callId) => {
        spawns.push({ specs, callId });
        return spawnOutcome;
      },
    },
    async write(relative, content) {
      const file = path.join(dir, relative);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
      return file;
    },
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}
