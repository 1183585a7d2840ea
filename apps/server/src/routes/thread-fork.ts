import { rm } from "node:fs/promises";
import { createRoute } from "@hono/zod-openapi";
import { ForkThreadBody, Id, ThreadDetail } from "@longrun/protocol";
import { forkThread } from "@longrun/runtime";
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
import type { ServerDeps } from "../server-deps.ts";
import { resolveWorkspace } from "../workspace.ts";
import { threadDetail } from "./thread-detail.ts";

const ThreadParams = z.object({ id: Id });
const tags = ["threads"];
const FORK_ERRORS = {
  ...AUTH_ERRORS,
  ...BODY_ERRORS,
  400: `${BODY_ERRORS[400]}; not exactly one of atMessageId and atCompactionId (nothing else but title), or an id that is not a message (compaction) of the thread's root agent`,
  404: "no such thread in your tenant",
} as const;

const fork = createRoute({
  method: "post",
  path: "/{id}/fork",
  operationId: "forkThread",
  summary: "A new thread that continues this one from a message or a compaction (the source is unchanged)",
  tags,
  security: BEARER,
  request: { params: ThreadParams, body: jsonBody(ForkThreadBody) },
  responses: { 201: jsonResponse("The fork, with its root agent", ThreadDetail), ...errors(FORK_ERRORS) },
});

const rewind = createRoute({
  method: "post",
  path: "/{id}/rewind",
  operationId: "rewindThread",
  summary: "A fork that this thread then points to: messages posted to it continue in the fork",
  tags,
  security: BEARER,
  request: { params: ThreadParams, body: jsonBody(ForkThreadBody) },
  responses: {
    201: jsonResponse("The fork now continuing this thread", ThreadDetail),
    ...errors(FORK_ERRORS),
  },
});

/** Fork and rewind: time travel over a thread's root agent, by reference to its facts. */
export function threadForkRoutes(deps: ServerDeps) {
  const app = createRouter();
  const handle = (isRewind: boolean) => async (id: string, tenantId: string, body: ForkThreadBody) => {
    const source = await requireThread(deps.store, tenantId, id);
    const forkId = newId();
    // The fork gets its own folder under the data dir, filled with the source's workspace as it was at
    // the point; a gateway thread's fork shares its folder (its tools run on the client).
    const workspace = source.modelProfile.gateway
      ? null
      : await resolveWorkspace(undefined, {
          dataDir: deps.dataDir,
          roots: deps.workspaceRoots,
          threadId: forkId,
          tenantId,
          store: deps.store,
        });
    const forking = forkThread(deps.runtime, {
      id: forkId,
      ...(workspace ? { workspaceDir: workspace.dir } : {}),
      sourceThreadId: id,
      point:
        "atCompactionId" in body
          ? { atCompactionId: body.atCompactionId }
          : { atMessageId: body.atMessageId },
      ...(body.title ? { title: body.title } : {}),
      rewind: isRewind,
    });
    // A refused fork (an unknown point) leaves no folder behind.
    const { thread } = await forking.catch(async (error: unknown) => {
      if (workspace) await rm(workspace.dir, { recursive: true, force: true });
      throw error;
    });
    return threadDetail(deps, thread.id);
  };
  app.openapi(fork, async (context) =>
    context.json(
      await handle(false)(context.req.valid("param").id, context.get("tenantId"), context.req.valid("json")),
      201,
    ),
  );
  app.openapi(rewind, async (context) =>
    context.json(
      await handle(true)(context.req.valid("param").id, context.get("tenantId"), context.req.valid("json")),
      201,
    ),
  );
  return app;
}
