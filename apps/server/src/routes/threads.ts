import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  CreateThreadBody,
  LongrunError,
  type LongrunEvent,
  PostMessageBody,
  PROFILE_DEFAULTS,
  type ThreadDetail,
} from "@longrun/protocol";
import { createThreadWithRoot, resolveProfile } from "@longrun/runtime";
import { demoProjectFiles, type SimScript, simModelName } from "@longrun/sim-model";
import { newId } from "@longrun/store";
import { Hono } from "hono";
import { type AuthEnv, requireThread } from "../auth.ts";
import type { ServerDeps } from "../server-deps.ts";
import { intQuery, readBody } from "../validate.ts";
import { resolveWorkspace } from "../workspace.ts";

/** Threads: create (with its root agent), list, read, post a message, read events. */
export function threadRoutes(deps: ServerDeps) {
  const { store } = deps;
  const app = new Hono<AuthEnv>();

  app.post("/", async (context) => {
    const body = await readBody(context, CreateThreadBody);
    const tenantId = context.get("tenantId");
    const threadId = newId();
    const workspaceDir = await resolveWorkspace(body.workspace, {
      dataDir: deps.dataDir,
      roots: deps.workspaceRoots,
      threadId,
    });
    const model = body.model ?? body.profile?.model ?? deps.defaults.model;
    if (model === "sim" && !body.workspace) await seedDemoProject(workspaceDir);
    const maxInputTokens =
      body.maxInputTokens ?? body.profile?.maxInputTokens ?? deps.defaults.maxInputTokens;
    const resolved = resolveProfile({
      ...body.profile,
      model,
      ...(maxInputTokens ? { maxInputTokens } : {}),
      ...(body.simSteps ? { simSteps: body.simSteps } : {}),
      ...(body.simScript ? { simScript: body.simScript } : {}),
      ...(body.simReasoning !== undefined ? { simReasoning: body.simReasoning } : {}),
    });
    // The sim model takes its script, step budget and window from the model string.
    const modelProfile =
      model === "sim"
        ? {
            ...resolved,
            model: simModelName({
              steps: body.simSteps ?? PROFILE_DEFAULTS.simSteps,
              ...(body.simScript ? { script: body.simScript as SimScript } : {}),
              ...(body.simReasoning ? { reasoning: true } : {}),
              ...(resolved.maxInputTokens ? { ctx: resolved.maxInputTokens } : {}),
            }),
            summarizerModel: undefined,
          }
        : resolved;
    const { thread } = await createThreadWithRoot(deps.runtime, {
      id: threadId,
      tenantId,
      title: body.title ?? (body.task ? body.task.slice(0, 60) : "Untitled thread"),
      workspaceDir,
      modelProfile,
      systemPrompt: body.systemPrompt,
    });
    if (body.task) {
      await deps.runControl.admitMessage({ threadId, content: body.task });
      deps.metrics.runs.inc({ kind: body.task.trim() === "/compact" ? "compact" : "message" });
    }
    return context.json(await threadDetail(deps, thread.id), 201);
  });

  app.get("/", async (context) => {
    const threads = await store.threads.list(context.get("tenantId"));
    return context.json({ threads });
  });

  app.get("/:id", async (context) => {
    await requireThread(store, context.get("tenantId"), context.req.param("id"));
    return context.json(await threadDetail(deps, context.req.param("id")));
  });

  app.post("/:id/messages", async (context) => {
    const threadId = context.req.param("id");
    await requireThread(store, context.get("tenantId"), threadId);
    const body = await readBody(context, PostMessageBody);
    const result = await deps.runControl.admitMessage({
      threadId,
      content: body.content,
      agentId: body.agentId,
    });
    deps.metrics.runs.inc({ kind: body.content.trim() === "/compact" ? "compact" : "message" });
    return context.json(result, 202);
  });

  app.get("/:id/events", async (context) => {
    const threadId = context.req.param("id");
    await requireThread(store, context.get("tenantId"), threadId);
    const since = intQuery(context, "since", 0) ?? 0;
    const limit = Math.min(intQuery(context, "limit", 1000) ?? 1000, 10_000);
    const events: LongrunEvent[] = await store.events.after(threadId, since, limit);
    return context.json({ events });
  });

  return app;
}

/** A new sim thread's empty workspace gets the sim's demo project, so the agent has files to explore. */
async function seedDemoProject(dir: string): Promise<void> {
  for (const [path, content] of Object.entries(demoProjectFiles())) {
    const target = join(dir, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content, { flag: "wx" }).catch(() => undefined);
  }
}

/** A thread with its agent tree and runs. */
export async function threadDetail(deps: ServerDeps, threadId: string): Promise<ThreadDetail> {
  const thread = await deps.store.threads.get(threadId);
  if (!thread) throw new LongrunError("not_found", `thread ${threadId} not found`);
  const [agents, runs] = await Promise.all([
    deps.store.agents.listByThread(threadId),
    deps.store.runs.listByThread(threadId),
  ]);
  return { ...thread, agents, runs };
}
