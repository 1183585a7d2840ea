import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type ModelInfo, PROFILE_DEFAULTS, type UpstreamApi } from "@longrun/protocol";
import { resolveProfile } from "@longrun/runtime";
import type { ModelCatalog } from "@longrun/server";
import {
  DEFAULT_SIM_CONFIG,
  demoProjectFiles,
  SIM_SCRIPTS,
  type SimScript,
  simModelName,
} from "@longrun/sim-model";
import type OpenAI from "openai";

/** How long the endpoint's model list is trusted before it is asked again. */
const ENDPOINT_TTL_MS = 60_000;
/** The endpoint's `GET /models` must answer within this, or the configured default is all there is. */
const ENDPOINT_TIMEOUT_MS = 5_000;

/**
 * The built-in (or a standalone) sim model: one model, "sim", with its scripted agents. Its threads get
 * the script, step budget and window in the model string, and a fresh workspace gets the demo project.
 */
export function simModelCatalog(upstreamApi: UpstreamApi = "chat-completions"): ModelCatalog {
  const info: ModelInfo = {
    id: "sim",
    object: "model",
    created: 0,
    owned_by: "longrun",
    longrun: {
      maxInputTokens: DEFAULT_SIM_CONFIG.maxInputTokens,
      default: true,
      simScripts: [...SIM_SCRIPTS],
      // The sim speaks all three formats: the configured one.
      upstreamApi,
    },
  };
  return {
    list: async () => [info],
    async prepareThread(setup) {
      if (setup.model !== "sim") return null;
      if (!setup.namedWorkspace) await seedDemoProject(setup.workspaceDir);
      return {
        model: simModelName({
          steps: setup.simSteps ?? PROFILE_DEFAULTS.simSteps,
          ...(setup.simScript ? { script: setup.simScript as SimScript } : {}),
          ...(setup.simReasoning ? { reasoning: true } : {}),
          ...(setup.maxInputTokens ? { ctx: setup.maxInputTokens } : {}),
        }),
        // The sim summarizes with its own name, not the per-thread script string.
        summarizerModel: undefined,
      };
    },
  };
}

/**
 * An OpenAI-compatible endpoint: the models named in LONGRUN_MODELS, else whatever the endpoint's
 * `GET /models` lists (cached), always with the default model; a listed `sim` is the sim model. An endpoint that cannot list its models
 * offers the default only, so an unknown name is refused at thread creation instead of at the first step.
 */
export function endpointModelCatalog(options: {
  client: OpenAI;
  defaultModel: string;
  configured: string[];
  /** The wire format longrun's agents call these models with (LONGRUN_UPSTREAM_API). */
  upstreamApi?: UpstreamApi;
}): ModelCatalog {
  let cached: { at: number; ids: string[] } | null = null;
  let warned = false;
  const endpointIds = async (): Promise<string[]> => {
    if (cached && Date.now() - cached.at < ENDPOINT_TTL_MS) return cached.ids;
    try {
      const ids: string[] = [];
      for await (const model of options.client.models.list({ timeout: ENDPOINT_TIMEOUT_MS }))
        ids.push(model.id);
      cached = { at: Date.now(), ids };
      warned = false;
    } catch (error) {
      if (!warned)
        console.warn(
          `[longrun] the model endpoint did not list its models (${(error as Error).message}); offering ${options.defaultModel} only — set LONGRUN_MODELS to name them`,
        );
      warned = true;
      cached = { at: Date.now(), ids: [] };
    }
    return cached.ids;
  };
  // An endpoint that serves the sim model (a standalone sim) offers it with its scripts and setup.
  const sim = simModelCatalog(options.upstreamApi);
  return {
    async list() {
      const ids = options.configured.length > 0 ? options.configured : await endpointIds();
      const [simInfo] = await sim.list();
      return [...new Set([options.defaultModel, ...ids])].map((id) =>
        id === "sim" && simInfo
          ? { ...simInfo, longrun: { ...simInfo.longrun, default: id === options.defaultModel } }
          : {
              id,
              object: "model" as const,
              created: 0,
              owned_by: "endpoint",
              longrun: {
                maxInputTokens: resolveProfile(id).maxInputTokens ?? null,
                default: id === options.defaultModel,
                upstreamApi: options.upstreamApi ?? "chat-completions",
              },
            },
      );
    },
    prepareThread: (setup) => sim.prepareThread?.(setup) ?? Promise.resolve(null),
  };
}

/**
 * A new sim thread's empty workspace gets the sim's demo project, so the agent has files to explore.
 * Folders first, then every file at once: one after another, its ~40 file-system calls each waited
 * for a turn of a busy event loop (a thread creation took 0.3–2.5 s while another tenant flooded).
 */
async function seedDemoProject(dir: string): Promise<void> {
  const files = Object.entries(demoProjectFiles()).map(([path, content]) => ({
    target: join(dir, path),
    content,
  }));
  await Promise.all(
    [...new Set(files.map((file) => dirname(file.target)))].map((folder) =>
      mkdir(folder, { recursive: true }),
    ),
  );
  await Promise.all(
    files.map(({ target, content }) =>
      // A file the user already has stays as it is (wx refuses to overwrite).
      writeFile(target, content, { flag: "wx" }).catch(() => undefined),
    ),
  );
}
