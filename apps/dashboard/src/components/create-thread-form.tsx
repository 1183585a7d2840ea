import type { CreateThreadBody, ModelInfo } from "@longrun/protocol";
import { useEffect, useState } from "react";
import { errorText } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";
import { HowItWorks } from "./how-it-works.tsx";

const DEFAULT_TASK = "Explore the workspace, make a plan, and report what you find.";

/** Creates a thread with its model options and, optionally, its first task. */
export function CreateThreadForm({ onCreated }: { onCreated: (threadId: string) => void }) {
  const { api, state, dispatch } = useStore();
  const [title, setTitle] = useState("");
  const [workspace, setWorkspace] = useState("");
  const [model, setModel] = useState("sim");
  const [maxInputTokens, setMaxInputTokens] = useState("8192");
  const [simSteps, setSimSteps] = useState("40");
  const [simScript, setSimScript] = useState("");
  const [task, setTask] = useState(DEFAULT_TASK);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Model and sim script are picked from what the server offers (GET /v1/models), not typed.
  const [models, setModels] = useState<ModelInfo[] | null>(null);
  useEffect(() => {
    let cancelled = false;
    api.models
      .list()
      .then((list) => {
        if (cancelled) return;
        setModels(list);
        const preferred =
          list.find((entry) => entry.id === "sim") ?? list.find((entry) => entry.longrun.default);
        if (preferred) setModel(preferred.id);
      })
      .catch(() => {
        // Without the list the model stays a text field.
      });
    return () => {
      cancelled = true;
    };
  }, [api]);
  // The error was about what the fields held when it was sent: once any of them changes, it no longer is.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the fields are what triggers it, not what it reads
  useEffect(() => {
    setError(null);
  }, [title, workspace, model, maxInputTokens, simSteps, simScript, task]);
  const scripts = models?.find((entry) => entry.id === model)?.longrun.simScripts ?? [];

  const submit = async () => {
    setBusy(true);
    setError(null);
    const body: CreateThreadBody = {
      ...(title.trim() ? { title: title.trim() } : {}),
      ...(workspace.trim() ? { workspace: workspace.trim() } : {}),
      ...(model.trim() ? { model: model.trim() } : {}),
      ...(maxInputTokens.trim() ? { maxInputTokens: Number(maxInputTokens) } : {}),
      ...(simSteps.trim() && model.trim() === "sim" ? { simSteps: Number(simSteps) } : {}),
      ...(simScript.trim() && model.trim() === "sim" ? { simScript: simScript.trim() } : {}),
      ...(task.trim() ? { task: task.trim() } : {}),
    };
    try {
      const detail = await api.threads.create(body);
      dispatch({
        type: "threads.loaded",
        threads: [
          { ...detail, pendingApprovals: 0, stuckRuns: 0 },
          ...state.threads.filter((thread) => thread.id !== detail.id),
        ],
      });
      onCreated(detail.id);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="home">
      <section className="panel create-thread" data-testid="create-thread">
        <h2>New thread</h2>
        <p className="muted">
          An agent gets the task and works in its workspace. With the built-in <code>sim</code> model and a
          small window (8192 tokens) you will see its context fill up and get compacted after a few dozen
          steps.
        </p>
        <form
          className="form-grid"
          onSubmit={(event) => {
            event.preventDefault();
            void submit();
          }}
        >
          <label>
            Title
            <input
              data-testid="create-title"
              placeholder="untitled"
              value={title}
              onChange={(event) => setTitle(event.target.value)}
            />
          </label>
          <label>
            Workspace
            <input
              data-testid="create-workspace"
              placeholder="empty: a new folder"
              value={workspace}
              onChange={(event) => setWorkspace(event.target.value)}
            />
          </label>
          {/* biome-ignore lint/a11y/noLabelWithoutControl: the control is a select or an input, both inside */}
          <label>
            Model
            {models && models.length > 0 ? (
              <select
                data-testid="create-model"
                value={model}
                onChange={(event) => setModel(event.target.value)}
              >
                {models.map((entry) => (
                  <option key={entry.id} value={entry.id}>
                    {entry.id}
                    {entry.longrun.maxInputTokens ? ` (${entry.longrun.maxInputTokens} tokens)` : ""}
                  </option>
                ))}
              </select>
            ) : (
              <input
                data-testid="create-model"
                value={model}
                onChange={(event) => setModel(event.target.value)}
              />
            )}
          </label>
          <label>
            Window (maxInputTokens)
            <input
              data-testid="create-max-input-tokens"
              type="number"
              min={1024}
              value={maxInputTokens}
              onChange={(event) => setMaxInputTokens(event.target.value)}
            />
          </label>
          <label>
            Sim steps
            <input
              data-testid="create-sim-steps"
              type="number"
              min={1}
              value={simSteps}
              onChange={(event) => setSimSteps(event.target.value)}
            />
          </label>
          <label>
            Sim script
            <select
              data-testid="create-sim-script"
              value={simScript}
              disabled={scripts.length === 0}
              onChange={(event) => setSimScript(event.target.value)}
            >
              <option value="">{scripts.length === 0 ? "sim model only" : "default (explorer)"}</option>
              {scripts.map((script) => (
                <option key={script} value={script}>
                  {script}
                </option>
              ))}
            </select>
          </label>
          <label className="wide">
            Task
            <textarea
              data-testid="create-task"
              rows={3}
              value={task}
              onChange={(event) => setTask(event.target.value)}
            />
          </label>
          <div className="wide actions">
            <button type="submit" className="primary" disabled={busy} data-testid="create-submit">
              {busy ? "Creating…" : "Create and start"}
            </button>
            {error && (
              <span className="error" data-testid="create-error">
                {error}
              </span>
            )}
          </div>
        </form>
      </section>
      <HowItWorks />
    </div>
  );
}
