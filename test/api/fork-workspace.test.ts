import { createHash } from "node:crypto";
import { appendFile, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
// Test-only: the real composition of embedded mode (a package dependency would be a cycle cli → server).
import { type EmbeddedInstance, loadConfig, openLog, startEmbedded } from "@longrun/cli";
import { createClient, type LongrunClient } from "@longrun/client";
import type { StoredMessage, ThreadDetail } from "@longrun/protocol";
import { type SimModelServer, startSimModel, WRITER_DIR } from "@longrun/sim-model";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

// The workspace as it was (issue 37 item 2): embedded longrun on a real libSQL file, the sim model's
// writer agent over real HTTP writing and editing files in a real workspace folder. A fork gets its own
// folder holding the source's workspace as of the fork point; snapshots are stored once per content.

let sim: SimModelServer;
let dataDir: string;
let instance: EmbeddedInstance;
let client: LongrunClient;

const config = () =>
  loadConfig({
    PORT: "0",
    LONGRUN_DATA_DIR: dataDir,
    LONGRUN_SIM_URL: sim.url,
    LONGRUN_TIME_ZONE: "UTC",
    LONGRUN_LOG_LEVEL: "warn",
  });

beforeAll(async () => {
  sim = await startSimModel({});
  dataDir = await mkdtemp(join(tmpdir(), "longrun-fork-ws-"));
  instance = await startEmbedded(config());
  client = createClient({ baseUrl: instance.url, token: instance.token });
});

afterAll(async () => {
  await instance?.close();
  await sim?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const rootOf = (detail: ThreadDetail) => detail.agents.find((agent) => !agent.parentAgentId)!;

async function finished(threadId: string, runId: string): Promise<ThreadDetail> {
  await vi.waitFor(
    async () => {
      const detail = await client.threads.get(threadId);
      expect(detail.runs.find((run) => run.id === runId)?.status).toBe("completed");
    },
    { timeout: 120_000, interval: 50 },
  );
  return client.threads.get(threadId);
}

/** A writer thread run to the end: it writes part-1, reads it, marks it reviewed, then part-4 likewise. */
async function writerThread(task = "Write the handbook") {
  const created = await client.threads.create({ model: "sim", simScript: "writer", simSteps: 6, task });
  const detail = await finished(created.id, created.runs[0]!.id);
  const facts = (await client.agents.messages(rootOf(detail).id, { afterSeq: -1, limit: 1000 })).messages;
  return { detail, facts };
}

/** The result fact of the call that did `name` to `path` (the assistant fact that asked for it first). */
function callFacts(facts: StoredMessage[], name: string, path: string) {
  const asked = facts.find((message) =>
    message.toolCalls?.some((call) => call.function.name === name && call.function.arguments.includes(path)),
  )!;
  const callId = asked.toolCalls!.find((call) => call.function.name === name)!.id;
  const result = facts.find((message) => message.role === "tool" && message.toolCallId === callId)!;
  return { asked, result };
}

/** Every file of a folder (longrun's own `.longrun` left out) → sha256 of its bytes. */
async function hashes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (folder: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const full = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== ".longrun") await walk(full);
      } else
        out[relative(dir, full)] = createHash("sha256")
          .update(await readFile(full))
          .digest("hex");
    }
  };
  await walk(dir);
  return out;
}

const part = (n: number) => `${WRITER_DIR}/part-${n}.md`;
const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe("a fork starts from the workspace as it was", () => {
  it("sees the content as of its point: before an edit the old text, after it the new, later files absent", async () => {
    const source = await writerThread();
    const sourceDir = source.detail.workspaceDir;
    const sourceFiles = await hashes(sourceDir);
    const written = callFacts(source.facts, "write_file", part(1));
    const edited = callFacts(source.facts, "edit_file", part(1));
    const current = await readFile(join(sourceDir, part(1)), "utf8");
    expect(current).toContain("# Part 1 (reviewed)");
    expect(await exists(join(sourceDir, part(4)))).toBe(true);

    // After the write, before the edit: part-1 as first written, part-4 not yet there.
    const early = await client.threads.fork(source.detail.id, { atMessageId: written.result.id });
    expect(early.workspaceDir).not.toBe(sourceDir);
    expect(early.workspaceDir).toBe(join(dataDir, "workspaces", early.id));
    const earlyPart1 = await readFile(join(early.workspaceDir, part(1)), "utf8");
    expect(earlyPart1).toContain("# Part 1\n");
    expect(earlyPart1).not.toContain("(reviewed)");
    expect(earlyPart1).toBe(current.replace("# Part 1 (reviewed)", "# Part 1"));
    expect(await exists(join(early.workspaceDir, part(4)))).toBe(false);

    // At the edit's call, without its result: the fork answers it cancelled, so the edit is not there.
    const atCall = await client.threads.fork(source.detail.id, { atMessageId: edited.asked.id });
    expect(await readFile(join(atCall.workspaceDir, part(1)), "utf8")).toBe(earlyPart1);

    // At the edit's result: the new text.
    const late = await client.threads.fork(source.detail.id, { atMessageId: edited.result.id });
    expect(await readFile(join(late.workspaceDir, part(1)), "utf8")).toBe(current);
    expect(await exists(join(late.workspaceDir, part(4)))).toBe(false);

    // Before the first write: no part-1 at all.
    const first = await client.threads.fork(source.detail.id, { atMessageId: written.asked.id });
    expect(await exists(join(first.workspaceDir, part(1)))).toBe(false);

    // At the last fact: the fork's folder equals the source's, file by file (hashes).
    const last = await client.threads.fork(source.detail.id, { atMessageId: source.facts.at(-1)!.id });
    expect(await hashes(last.workspaceDir)).toEqual(sourceFiles);
    // A refused point (an id that is no message of the root) leaves no folder behind.
    const folders = await readdir(join(dataDir, "workspaces"));
    await expect(client.threads.fork(source.detail.id, { atMessageId: source.detail.id })).rejects.toThrow();
    expect(await readdir(join(dataDir, "workspaces"))).toEqual(folders);
    // The source is untouched by all of it.
    expect(await hashes(sourceDir)).toEqual(sourceFiles);
  });

  it("restores into an earlier fork a file deleted later (outside the file tools)", async () => {
    const source = await writerThread("Write the deletion guide");
    const edited = callFacts(source.facts, "edit_file", part(1));
    const text = await readFile(join(source.detail.workspaceDir, part(1)), "utf8");
    await rm(join(source.detail.workspaceDir, part(1)));
    const fork = await client.threads.fork(source.detail.id, { atMessageId: edited.result.id });
    expect(await readFile(join(fork.workspaceDir, part(1)), "utf8")).toBe(text);
    // A rewind gets a folder of its own too (the source's folder stays as it is).
    const rewind = await client.threads.rewind(source.detail.id, { atMessageId: edited.result.id });
    expect(await readFile(join(rewind.workspaceDir, part(1)), "utf8")).toBe(text);
    expect(await exists(join(source.detail.workspaceDir, part(1)))).toBe(false);
    expect(rootOf(fork).forkMessageId).toBe(edited.result.id);
  });

  it("stores a content once per tenant: a second thread writing the same files adds rows, not blobs", async () => {
    const usage = async () => {
      const store = await openLog(config());
      try {
        return {
          blobs: await store.fileSnapshots.blobUsage(rootTenant),
          rows: (await store.fileSnapshots.list(secondId ?? firstId)).length,
        };
      } finally {
        await store.close();
      }
    };
    let secondId: string | undefined;
    const first = await writerThread("Write the same handbook twice");
    const firstId = first.detail.id;
    const rootTenant = first.detail.tenantId;
    const afterFirst = await usage();
    const second = await writerThread("Write the same handbook twice");
    secondId = second.detail.id;
    const afterSecond = await usage();
    // Four contents (part-1 and part-4, each as written and as reviewed), stored once.
    expect(afterFirst.blobs.blobs).toBeGreaterThanOrEqual(4);
    expect(afterSecond.blobs).toEqual(afterFirst.blobs);
    // Each thread has its own rows: a before (no file) and an after per change.
    // Per thread: part-1 written (before: no file, after), edited (after), part-4 likewise.
    expect(afterFirst.rows).toBe(6);
    expect(afterSecond.rows).toBe(6);
  });

  it("equals, hash for hash, the files the agent's calls made up to each point (50 changes)", async () => {
    // 75 writer steps: 25 files written, 25 edited. The oracle replays the calls' own arguments.
    const created = await client.threads.create({
      model: "sim",
      simScript: "writer",
      simSteps: 75,
      task: "Write the long handbook",
    });
    const detail = await finished(created.id, created.runs[0]!.id);
    const facts = (await client.agents.messages(rootOf(detail).id, { afterSeq: -1, limit: 1000 })).messages;
    const calls = new Map(facts.flatMap((message) => message.toolCalls ?? []).map((call) => [call.id, call]));
    const expectedAt = (point: StoredMessage) => {
      const files = new Map<string, string>();
      for (const result of facts) {
        if (result.seq > point.seq || result.role !== "tool" || result.toolStatus !== "ok") continue;
        const call = calls.get(result.toolCallId ?? "");
        const args = JSON.parse(call?.function.arguments ?? "{}");
        if (call?.function.name === "write_file") files.set(args.path, args.content);
        if (call?.function.name === "edit_file")
          files.set(args.path, files.get(args.path)!.replace(args.oldText, args.newText));
      }
      return files;
    };
    const changes = facts.filter(
      (message) =>
        message.role === "tool" &&
        ["write_file", "edit_file"].includes(calls.get(message.toolCallId ?? "")?.function.name ?? ""),
    );
    expect(changes).toHaveLength(50);
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    for (const point of [changes[0]!, changes[9]!, changes[24]!, changes[37]!, facts.at(-1)!]) {
      const fork = await client.threads.fork(detail.id, { atMessageId: point.id });
      const actual = await hashes(join(fork.workspaceDir, WRITER_DIR)).catch(() => ({}));
      const expected = Object.fromEntries(
        [...expectedAt(point)].map(([path, text]) => [relative(WRITER_DIR, path), sha(text)]),
      );
      expect(actual).toEqual(expected);
    }
  });

  it("a compaction's restored files name their version: current, or the agent's last write once an editor changed the file", async () => {
    const created = await client.threads.create({
      model: "sim",
      simScript: "writer",
      simSteps: 90,
      maxInputTokens: 32_768,
      task: "Write the compacted handbook",
    });
    const detail = await finished(created.id, created.runs[0]!.id);
    const compactions = await client.agents.compactions(rootOf(detail).id);
    const restored = compactions
      .flatMap((compaction) => compaction.restored)
      .filter((item) => item.kind === "file");
    expect(restored.length).toBeGreaterThan(0);
    expect(new Set(restored.map((item) => item.version))).toEqual(new Set(["current"]));

    // An editor changes every file after the run; a manual compaction then restores the agent's last
    // write of a file it wrote last (the snapshot), the current file where the agent read it since.
    for (const name of await readdir(join(detail.workspaceDir, WRITER_DIR)))
      await appendFile(join(detail.workspaceDir, WRITER_DIR, name), "\nexternal edit\n");
    const posted = await client.threads.sendMessage(detail.id, { content: "/compact" });
    await finished(detail.id, posted.runId);
    const last = (await client.agents.compactions(rootOf(detail).id)).at(-1)!;
    const files = last.restored.filter((item) => item.kind === "file");
    const snapshots = files.filter((item) => item.version?.startsWith("as of message #"));
    expect(snapshots.length).toBeGreaterThan(0);
    for (const item of files) {
      if (item.version === "current") expect(item.content).toContain("external edit");
      else {
        expect(item.version).toMatch(/^as of message #\d+, the agent's last write; changed since$/);
        expect(item.content).not.toContain("external edit");
      }
    }
  });
});
