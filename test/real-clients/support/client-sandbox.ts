import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { demoProjectFiles } from "@longrun/sim-model";

/** A temporary home (HOME, XDG folders) and a work folder holding a small project. */
export interface ClientSandbox {
  root: string;
  home: string;
  work: string;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export async function createSandbox(
  prefix: string,
  /** Files the project has besides the sim's demo project (path → content). */
  extraFiles: Record<string, string> = {},
): Promise<ClientSandbox> {
  const root = await mkdtemp(join(tmpdir(), `longrun-${prefix}-`));
  const home = join(root, "home");
  const work = join(root, "work");
  for (const [path, content] of Object.entries({ ...demoProjectFiles(), ...extraFiles })) {
    await mkdir(dirname(join(work, path)), { recursive: true });
    await writeFile(join(work, path), content);
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    TMPDIR: join(root, "tmp"),
    NO_COLOR: "1",
  };
  for (const folder of [
    home,
    env.XDG_CONFIG_HOME!,
    env.XDG_DATA_HOME!,
    env.XDG_CACHE_HOME!,
    env.XDG_STATE_HOME!,
    env.TMPDIR!,
  ]) {
    await mkdir(folder, { recursive: true });
  }
  return { root, home, work, env, cleanup: () => rm(root, { recursive: true, force: true }) };
}
