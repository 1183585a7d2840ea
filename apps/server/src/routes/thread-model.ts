import { type CreateThreadBody, LongrunError, type ModelInfo, type ModelProfile } from "@longrun/protocol";
import { resolveProfile } from "@longrun/runtime";
import type { ServerDeps } from "../server-deps.ts";

/**
 * Checks a new thread's model choices against the catalog before anything is created (an unknown model
 * or sim script is a 400 now, not a failed first step), and builds its profile once the workspace is known.
 */
export async function resolveThreadModel(
  deps: Pick<ServerDeps, "models" | "defaults">,
  body: CreateThreadBody,
): Promise<{ profileFor(workspace: { dir: string; named: boolean }): Promise<ModelProfile> }> {
  const models = await deps.models.list();
  const model = body.model ?? body.profile?.model ?? deps.defaults.model;
  const entry = requireModel(models, model, "model");
  if (body.profile?.summarizerModel)
    requireModel(models, body.profile.summarizerModel, "profile.summarizerModel");
  if (body.simScript !== undefined) {
    const scripts = entry.longrun.simScripts ?? [];
    if (!scripts.includes(body.simScript))
      throw new LongrunError(
        "bad_request",
        scripts.length === 0
          ? `simScript: model ${model} has no scripts (only sim models do)`
          : `simScript: unknown script ${JSON.stringify(body.simScript)}; model ${model} offers ${scripts.join(", ")}`,
      );
  }
  const maxInputTokens =
    body.maxInputTokens ?? body.profile?.maxInputTokens ?? deps.defaults.maxInputTokens ?? undefined;
  const upstreamApi = body.profile?.upstreamApi ?? entry.longrun.upstreamApi;
  const thinkingBudgetTokens = body.profile?.thinkingBudgetTokens ?? deps.defaults.thinkingBudgetTokens;
  const resolved = resolveProfile({
    ...body.profile,
    model,
    ...(upstreamApi ? { upstreamApi } : {}),
    ...(thinkingBudgetTokens ? { thinkingBudgetTokens } : {}),
    ...(maxInputTokens ? { maxInputTokens } : {}),
    ...(body.simSteps ? { simSteps: body.simSteps } : {}),
    ...(body.simScript ? { simScript: body.simScript } : {}),
    ...(body.simReasoning !== undefined ? { simReasoning: body.simReasoning } : {}),
  });
  return {
    async profileFor(workspace) {
      const prepared = await deps.models.prepareThread?.({
        model,
        workspaceDir: workspace.dir,
        namedWorkspace: workspace.named,
        ...(resolved.maxInputTokens ? { maxInputTokens: resolved.maxInputTokens } : {}),
        ...(body.simSteps ? { simSteps: body.simSteps } : {}),
        ...(body.simScript ? { simScript: body.simScript } : {}),
        ...(body.simReasoning !== undefined ? { simReasoning: body.simReasoning } : {}),
      });
      return prepared ? { ...resolved, ...prepared, summarizerModel: prepared.summarizerModel } : resolved;
    },
  };
}

function requireModel(models: ModelInfo[], model: string, field: string): ModelInfo {
  const entry = models.find((candidate) => candidate.id === model);
  if (!entry)
    throw new LongrunError(
      "bad_request",
      `${field}: unknown model ${JSON.stringify(model)}; GET /v1/models lists the models this server offers`,
    );
  return entry;
}
