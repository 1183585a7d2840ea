import { createRoute } from "@hono/zod-openapi";
import {
  CreateThreadBody,
  EventsPage,
  EventsQuery,
  Id,
  PAGE_LIMITS,
  PostMessageBody,
  PostMessageResult,
  type Thread,
  ThreadCost,
  ThreadDetail,
  ThreadList,
  ThreadListQuery,
  ThreadSnapshot,
} from "@longrun/protocol";
import { admitWithMultitask, checkRunQuota, createThreadWithRoot, threadCost } from "@longrun/runtime";
import { newId } from "@longrun/store";
import { z } from "zod";
import { requireThread } from "../auth.ts";
import {
  AUTH_ERRORS,
  BEARER,
  BODY_ERRORS,
  createRouter,
  errors,
  jsonBody,
  jsonResponse,
} from "../contract.ts";
import { checkMessageSize } from "../message-size.ts";
import { readBoundedPage } from "../paging.ts";
import type { ServerDeps } from "../server-deps.ts";
import { resolveWorkspace } from "../workspace.ts";
import { threadDetail } from "./thread-detail.ts";
import { resolveThreadModel } from "./thread-model.ts";
import { threadAttention, threadSnapshot } from "./thread-snapshot.ts";

const ThreadParams = z.object({ id: Id });
const tags = ["threads"];

const createThread = createRoute({
  method: "post",
  path: "/",
  operationId: "createThread",
  summary: "Create a thread with its root agent (and optionally post its first task)",
  tags,
  security: BEARER,
  request: { body: jsonBody(CreateThreadBody) },
  responses: {
    201: jsonResponse("The thread with its agent tree and runs", ThreadDetail),
    ...errors({
      ...AUTH_ERRORS,
      ...BODY_ERRORS,
      400: `${BODY_ERRORS[400]}; an unknown model (see GET /v1/models), an unknown simScript, or a workspace that is not an existing folder`,
      403: "the workspace is outside LONGRUN_WORKSPACE_ROOTS, is a root itself, or another tenant uses it",
      413: `${BODY_ERRORS[413]}, or the task is over LONGRUN_MAX_MESSAGE_CHARS`,
    }),
  },
});

const listThreads = createRoute({
  method: "get",
  path: "/",
  operationId: "listThreads",
  summary: "The tenant's threads, newest first",
  tags,
  security: BEARER,
  request: { query: ThreadListQuery },
  responses: {
    200: jsonResponse("Up to `limit` threads (default 100)", ThreadList),
    ...errors({ ...AUTH_ERRORS, 400: "a query parameter is out of its bounds" }),
  },
});

const getThread = createRoute({
  method: "get",
  path: "/{id}",
  operationId: "getThread",
  summary: "A thread with its agent tree and runs",
  tags,
  security: BEARER,
  request: { params: ThreadParams },
  responses: {
    200: jsonResponse("The thread", ThreadDetail),
    ...errors({ ...AUTH_ERRORS, 400: "the id is malformed", 404: "no such thread in your tenant" }),
  },
});

const getSnapshot = createRoute({
  method: "get",
  path: "/{id}/snapshot",
  operationId: "getThreadSnapshot",
  summary: "The thread at its head seq: detail, what each agent is doing now, undecided approvals",
  tags,
  security: BEARER,
  request: { params: ThreadParams },
  responses: {
    200: jsonResponse("The snapshot; apply the events after `headSeq` to stay current", ThreadSnapshot),
    ...errors({ ...AUTH_ERRORS, 400: "the id is malformed", 404: "no such thread in your tenant" }),
  },
});

const getCost = createRoute({
  method: "get",
  path: "/{id}/cost",
  operationId: "getThreadCost",
  summary:
    "What the thread's model calls cost so far, beside the plain way of compacting on the same messages",
  tags,
  security: BEARER,
  request: { params: ThreadParams },
  responses: {
    200: jsonResponse(
      "Billed-equivalent tokens per price profile, and the plain strategy's figure",
      ThreadCost,
    ),
    ...errors({ ...AUTH_ERRORS, 400: "the id is malformed", 404: "no such thread in your tenant" }),
  },
});

const postMessage = createRoute({
  method: "post",
  path: "/{id}/messages",
  operationId: "postMessage",
  summary: "Post a user message; starts a run or queues it behind the active one",
  tags,
  security: BEARER,
  request: { params: ThreadParams, body: jsonBody(PostMessageBody) },
  responses: {
    202: jsonResponse("The run admitted for the message", PostMessageResult),
    ...errors({
      ...AUTH_ERRORS,
      ...BODY_ERRORS,
      400: `${BODY_ERRORS[400]}; multitask rollback with an agentId`,
      404: "no such thread in your tenant, or no such agent in the thread",
      409: "a run is active and multitask is reject",
      413: `${BODY_ERRORS[413]}, or the content is over LONGRUN_MAX_MESSAGE_CHARS`,
    }),
  },
});

const listEvents = createRoute({
  method: "get",
  path: "/{id}/events",
  operationId: "listThreadEvents",
  summary: "A page of the thread's persisted events after `since` (per-thread seq)",
  tags,
  security: BEARER,
  request: { params: ThreadParams, query: EventsQuery },
  responses: {
    200: jsonResponse(
      "Up to `limit` events (default 1000) and at most ~4 MiB; `nextSince` continues",
      EventsPage,
    ),
    ...errors({
      ...AUTH_ERRORS,
      400: "a query parameter is not an integer or out of its bounds",
      404: "no such thread in your tenant",
    }),
  },
});

/** Threads: create (with its root agent), list, read, post a message, read events. */
export function threadRoutes(deps: ServerDeps) {
  const { store } = deps;
  const app = createRouter();
  // Named workspaces are checked then claimed by the new thread: one creation at a time in this process.
  let claiming: Promise<unknown> = Promise.resolve();

  app.openapi(createThread, async (context) => {
    const body = context.req.valid("json");
    const tenantId = context.get("tenantId");
    if (body.task) checkMessageSize(deps, body.task, "task");
    // A thread whose task would be refused for the tenant's share is not created at all (no empty
    // thread left behind by each 429 a flooding client retries).
    if (body.task) await checkRunQuota(deps.runtime, tenantId, 0);
    const model = await resolveThreadModel(deps, body);
    const threadId = newId();
    const create = async () => {
      const workspace = await resolveWorkspace(body.workspace, {
        dataDir: deps.dataDir,
        roots: deps.workspaceRoots,
        threadId,
        tenantId,
        store,
      });
      const modelProfile = await model.profileFor(workspace);
      return createThreadWithRoot(deps.runtime, {
        id: threadId,
        tenantId,
        title: body.title ?? (body.task ? body.task.slice(0, 60) : "Untitled thread"),
        workspaceDir: workspace.dir,
        modelProfile,
        systemPrompt: body.systemPrompt,
      });
    };
    const created = body.workspace ? claiming.then(create, create) : create();
    // Only orders the next claim after this one; this request awaits `created` itself.
    if (body.workspace) claiming = created.catch(() => undefined);
    const { thread } = await created;
    if (body.task) {
      await deps.runControl.admitMessage({ threadId, content: body.task });
      deps.metrics.runtime.runAdmitted(body.task.trim() === "/compact" ? "compact" : "message", tenantId);
    }
    return context.json(await threadDetail(deps, thread.id), 201);
  });

  app.openapi(listThreads, async (context) => {
    const { limit = PAGE_LIMITS.threads.default } = context.req.valid("query");
    const tenantId = context.get("tenantId");
    const threads = await store.threads.list(tenantId, { limit });
    const attention = await threadAttention(
      deps,
      tenantId,
      threads.map((thread) => thread.id),
    );
    return context.json(
      {
        threads: threads.map((thread) => ({
          ...thread,
          pendingApprovals: attention.approvals.get(thread.id) ?? 0,
          stuckRuns: attention.stuck.get(thread.id) ?? 0,
        })),
      },
      200,
    );
  });

  app.openapi(getThread, async (context) => {
    const { id } = context.req.valid("param");
    await requireThread(store, context.get("tenantId"), id);
    return context.json(await threadDetail(deps, id), 200);
  });

  app.openapi(getSnapshot, async (context) => {
    const { id } = context.req.valid("param");
    await requireThread(store, context.get("tenantId"), id);
    return context.json(await threadSnapshot(deps, id), 200);
  });

  app.openapi(getCost, async (context) => {
    const { id } = context.req.valid("param");
    await requireThread(store, context.get("tenantId"), id);
    return context.json(await threadCost(deps.runtime, id), 200);
  });

  app.openapi(postMessage, async (context) => {
    const { id } = context.req.valid("param");
    const body = context.req.valid("json");
    const thread = await requireThread(store, context.get("tenantId"), id);
    // A rewound thread continues in the fork it points to (a named agent stays in its own thread).
    const threadId = body.agentId ? id : await followRewinds(deps, thread);
    checkMessageSize(deps, body.content, "content");
    const result = await admitWithMultitask(deps.runtime, deps.runControl, {
      threadId,
      content: body.content,
      agentId: body.agentId,
      multitask: body.multitask,
    });
    deps.metrics.runtime.runAdmitted(
      body.content.trim() === "/compact" ? "compact" : "message",
      context.get("tenantId"),
    );
    return context.json(result, 202);
  });

  app.openapi(listEvents, async (context) => {
    const { id } = context.req.valid("param");
    await requireThread(store, context.get("tenantId"), id);
    const { since = 0, limit = PAGE_LIMITS.events.default, types } = context.req.valid("query");
    const filter = types?.split(",");
    const page = await readBoundedPage({
      start: since,
      limit,
      read: (after, count) => store.events.after(id, after, count, filter),
      cursorOf: (event) => event.seq,
    });
    return context.json({ events: page.items, nextSince: page.next }, 200);
  });

  return app;
}

/** The thread a rewind chain ends at (a rewind points a thread to its fork; rewinds may be chained). */
async function followRewinds(deps: ServerDeps, thread: Thread): Promise<string> {
  let current = thread;
  const seen = new Set<string>([current.id]);
  while (current.rewoundToThreadId && !seen.has(current.rewoundToThreadId)) {
    const next = await deps.store.threads.get(current.rewoundToThreadId);
    if (!next) break;
    seen.add(next.id);
    current = next;
  }
  return current.id;
}
