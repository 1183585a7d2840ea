import { LongrunError, type Multitask, type PostMessageResult } from "@longrun/protocol";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { forkThread } from "./fork-thread.ts";
import type { RunControl } from "./run-control.ts";

/**
 * A message posted while a run of the thread is active, by strategy (none active: every strategy
 * admits it as usual):
 * - `enqueue` (default, the behaviour before strategies existed): queued behind the active run;
 * - `reject`: refused with 409, nothing admitted;
 * - `interrupt`: admitted behind the active run, which stops at its next step boundary: a step in
 *   flight (model call, tool calls, a compaction) finishes, then the run is cancelled and the message
 *   runs; a run parked on an approval or on its sub-agents is cancelled at once (its pending call is
 *   answered cancelled by the projection's repair);
 * - `rollback`: the active run is cancelled, and the thread is rewound to the fact before that run's
 *   input: its facts stay in the source thread (now the branch that holds them, never deleted), and the
 *   message starts the fork the source points to.
 */
export async function admitWithMultitask(
  deps: RuntimeDeps,
  runControl: RunControl,
  input: {
    threadId: string;
    content: string;
    agentId?: string | undefined;
    multitask?: Multitask | undefined;
  },
): Promise<PostMessageResult & { threadId: string }> {
  const { threadId, multitask = "enqueue" } = input;
  const admit = async (target: string) => ({
    ...(await runControl.admitMessage({
      threadId: target,
      content: input.content,
      ...(input.agentId ? { agentId: input.agentId } : {}),
    })),
    threadId: target,
  });
  // The thread's top-level run under way (a team's child runs end with it).
  const active = (await deps.store.runs.active(threadId)).find(
    (run) => run.status !== "queued" && !run.parentRunId,
  );
  if (!active || multitask === "enqueue") return admit(threadId);
  switch (multitask) {
    case "reject":
      throw new LongrunError(
        "conflict",
        `run ${active.id} is active on thread ${threadId} (multitask: reject)`,
      );
    case "interrupt": {
      const admitted = await admit(threadId);
      await runControl.interruptAtStepBoundary(active.id);
      return admitted;
    }
    case "rollback": {
      if (input.agentId) throw new LongrunError("bad_request", "rollback applies to the root agent only");
      await runControl.cancel(active.id, "rolled back by a new message");
      const facts = await deps.store.messages.list(active.agentId, { afterSeq: -1 });
      const startedAt = active.startedAt ?? active.createdAt;
      const inputIndex = facts.findIndex(
        (message) =>
          message.role === "user" && message.createdAt >= startedAt && message.content === active.input,
      );
      const before =
        inputIndex > 0
          ? facts[inputIndex - 1]
          : facts.filter((message) => message.createdAt < startedAt).at(-1);
      if (!before)
        throw new LongrunError("conflict", `run ${active.id} has no fact before it to roll back to`);
      const fork = await forkThread(deps, {
        sourceThreadId: threadId,
        point: { atMessageId: before.id },
        rewind: true,
      });
      return admit(fork.thread.id);
    }
    default: {
      const exhaustive: never = multitask;
      throw new LongrunError("bad_request", `unknown multitask ${String(exhaustive)}`);
    }
  }
}
