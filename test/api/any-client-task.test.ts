import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { CLIENT_TOOL_LISTS, type SimModelServer } from "@longrun/sim-model";
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type GatewayOverSim, startGatewayOverSim } from "../e2e/support/embedded-instance.ts";

const WINDOW = 16_384;
const STEPS = 30;

let gateway: GatewayOverSim;
let sim: SimModelServer;
let openai: OpenAI;

beforeAll(async () => {
  gateway = await startGatewayOverSim();
  ({ sim, openai } = gateway);
});
afterAll(() => gateway?.close());

/** A small project on disk: 16 modules of ~2k tokens each, so a survey outgrows a 16k window. */
async function project(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "any-client-"));
  for (let index = 0; index < 16; index++) {
    const path = join(folder, ["src", "src/lib", "test", "docs"][index % 4]!, `module-${index}.ts`);
    await mkdir(dirname(path), { recursive: true });
    const lines = Array.from(
      { length: 100 },
      (_, line) => `export const value${index}_${line} = compute(${line}, "module ${index} line ${line}");`,
    );
    await writeFile(path, `${lines.join("\n")}\n`);
  }
  await writeFile(join(folder, "README.md"), "# A project to survey\n");
  return folder;
}

async function walk(folder: string, base = folder): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? walk(join(folder, entry.name), base) : [relative(base, join(folder, entry.name))],
    ),
  );
  return nested.flat().sort();
}

/** pi's and qwen-code's tools as those clients run them, on the real folder (bash runs in it). */
async function runTool(folder: string, name: string, argumentsText: string): Promise<string> {
  const args = JSON.parse(argumentsText) as Record<string, string>;
  const at = (path: string | undefined) => {
    if (typeof path !== "string") throw new Error(`${name}: a required path argument is missing`);
    return resolve(folder, path);
  };
  const edit = async (path: string, from: string, to: string) => {
    const text = await readFile(at(path), "utf8");
    if (!text.includes(from)) return `Error: the text to replace was not found in ${path}`;
    await writeFile(at(path), text.replace(from, to));
    return "Edited.";
  };
  try {
    switch (name) {
      case "bash":
      case "run_shell_command":
        return execFileSync("bash", ["-c", args.command!], { cwd: folder, encoding: "utf8", stdio: "pipe" });
      case "read":
        return await readFile(at(args.path), "utf8");
      case "read_file":
        return await readFile(at(args.file_path), "utf8");
      case "write":
        await writeFile(at(args.path), args.content!);
        return "Written.";
      case "write_file":
        await writeFile(at(args.file_path), args.content!);
        return "Written.";
      case "edit":
        return "path" in args
          ? await edit(args.path!, args.oldText!, args.newText!)
          : await edit(args.file_path!, args.old_string!, args.new_string!);
      case "glob":
      case "list_directory":
        return (await walk(folder)).map((file) => join(folder, file)).join("\n");
      case "search_file_content": {
        const pattern = new RegExp(args.pattern!);
        const hits: string[] = [];
        for (const file of await walk(folder)) {
          const lines = (await readFile(join(folder, file), "utf8")).split("\n");
          lines.forEach((line, index) => {
            if (pattern.test(line)) hits.push(`${file}:${index + 1}: ${line}`);
          });
        }
        return hits.slice(0, 40).join("\n");
      }
      default:
        return `Error: unknown tool ${name}`;
    }
  } catch (error) {
    return `Error: ${error instanceof Error ? error.message : String(error)}`;
  }
}

const CLIENTS = [
  {
    client: "pi" as const,
    system: (folder: string) =>
      `You are an expert coding assistant operating inside pi.\nCurrent working directory: ${folder}`,
  },
  {
    client: "qwen" as const,
    system: (folder: string) =>
      `You are Qwen Code, an interactive CLI agent.\nI'm currently working in the directory: ${folder}`,
  },
];

describe("a client the sim has no script for does a real multi-step task through longrun", () => {
  for (const { client, system } of CLIENTS) {
    it(`${client}: a ${STEPS}-step survey in its own tools at 16k, its history outgrows the window, no request over it`, async () => {
      const folder = await project();
      try {
        const model = `sim:script=coder:steps=${STEPS}:ctx=${WINDOW}`;
        const before = sim.log.entries.at(-1)?.seq ?? 0;
        let messages: OpenAI.ChatCompletionMessageParam[] = [
          { role: "system", content: system(folder) },
          {
            role: "user",
            content: `Survey this project, keep NOTES.md and finish with REPORT.md (${client}).`,
          },
        ];
        let final = "";
        for (let turn = 0; turn < STEPS + 5 && !final; turn++) {
          const completion = await openai.chat.completions.create(
            { model, messages, tools: CLIENT_TOOL_LISTS[client] as OpenAI.ChatCompletionFunctionTool[] },
            { headers: { "x-longrun-max-input-tokens": String(WINDOW) } },
          );
          const message = completion.choices[0]!.message;
          messages = [...messages, message as OpenAI.ChatCompletionMessageParam];
          const calls = (message.tool_calls ?? []).filter((call) => call.type === "function");
          if (calls.length === 0) final = message.content ?? "";
          for (const call of calls) {
            const content = await runTool(folder, call.function.name, call.function.arguments);
            messages = [...messages, { role: "tool", tool_call_id: call.id, content }];
          }
        }
        expect(final).toMatch(new RegExp(`\\[sim:done step=${STEPS}\\]`));
        await expect(readFile(join(folder, "NOTES.md"), "utf8")).resolves.toContain("progress: step 28");
        const report = await readFile(join(folder, "REPORT.md"), "utf8");
        expect(report).toContain(`Finished after ${STEPS} steps`);
        expect(report).toMatch(/Files read \([1-9]\d*\)/);
        const upstream = sim.log.entries.filter((entry) => entry.seq > before);
        expect(upstream.filter((entry) => entry.status !== 200)).toEqual([]);
        // The client's own history outgrew the window; longrun kept every request inside it (by its
        // reductions, and a compaction when they were not enough).
        expect(JSON.stringify(messages).length / 4).toBeGreaterThan(WINDOW);
        for (const entry of upstream) expect(entry.promptTokens ?? 0).toBeLessThanOrEqual(WINDOW);
        console.log(
          `[any client] ${client}: ${upstream.length} upstream requests, ${upstream.filter((entry) => entry.summary).length} longrun compactions, peak prompt ${Math.max(...upstream.map((entry) => entry.promptTokens ?? 0))}, client history ~${Math.round(JSON.stringify(messages).length / 4)} tokens`,
        );
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    }, 120_000);
  }
});
