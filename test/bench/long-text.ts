import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { startEmbeddedForTest, waitForRun } from "../e2e/support/embedded-instance.ts";
import { startHealthPoller } from "../faults/support/health-poller.ts";
import { renderTable } from "./stats.ts";

// The freeze of issue "Nothing freezes, nothing hangs", item 1, as a figure: the worst /healthz latency
// of an embedded server while it takes a ~200,000-character message without whitespace (a fresh random
// text each round, so no count cache hides the cost) that fits its window, beside the same figure for
// an ordinary short message on the same server, through REST and through the gateway.

const RESULTS = fileURLToPath(new URL("./results/long-text.json", import.meta.url));

/** `length` random lowercase letters: one pre-tokenizer piece, never seen before. */
function unbrokenText(length: number): string {
  let text = "";
  for (const byte of randomBytes(length)) text += String.fromCharCode(97 + (byte % 26));
  return text;
}

/** An ordinary message of about the same word count as a short task. */
function shortText(): string {
  return `Explore the project and report what you find (${randomBytes(4).toString("hex")}).`;
}

interface Sample {
  route: "rest" | "gateway";
  text: "short" | "200k unbroken";
  worstHealthzMs: number;
  polls: number;
  failures: number;
  elapsedMs: number;
}

/** `npm run bench -- long-text`: worst /healthz with a 200k unbroken message vs a short one. */
export async function runLongTextBench(options: { rounds: number; chars: number }): Promise<void> {
  const embedded = await startEmbeddedForTest();
  const samples: Sample[] = [];
  const loads: number[] = [];
  try {
    const measure = async (route: Sample["route"], text: Sample["text"], content: string) => {
      const poller = startHealthPoller(embedded.instance.url);
      const started = performance.now();
      if (route === "rest") {
        const thread = await embedded.client.threads.create({
          model: "sim",
          maxInputTokens: 128_000,
          simSteps: 2,
        });
        const posted = await embedded.client.threads.sendMessage(thread.id, { content });
        await waitForRun(embedded.client, thread.id, posted.runId);
      } else {
        const response = await fetch(`${embedded.instance.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${embedded.instance.token}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "sim", messages: [{ role: "user", content }] }),
        });
        if (response.status !== 200) throw new Error(`gateway answered ${response.status}`);
        await response.text();
      }
      const elapsedMs = performance.now() - started;
      const health = await poller.stop();
      loads.push(loadavg()[0] ?? 0);
      samples.push({
        route,
        text,
        worstHealthzMs: health.worst,
        polls: health.count,
        failures: health.failures,
        elapsedMs,
      });
    };
    for (let round = 0; round < options.rounds; round++) {
      for (const route of ["rest", "gateway"] as const) {
        await measure(route, "short", shortText());
        await measure(route, "200k unbroken", unbrokenText(options.chars));
      }
    }
  } finally {
    await embedded.close();
  }

  const rows = (["rest", "gateway"] as const).map((route) => {
    const worst = (text: Sample["text"]) =>
      Math.max(...samples.filter((s) => s.route === route && s.text === text).map((s) => s.worstHealthzMs));
    const elapsed = (text: Sample["text"]) =>
      Math.max(...samples.filter((s) => s.route === route && s.text === text).map((s) => s.elapsedMs));
    const failures = samples.filter((s) => s.route === route).reduce((sum, s) => sum + s.failures, 0);
    return [
      route,
      `${worst("short").toFixed(0)} ms`,
      `${worst("200k unbroken").toFixed(0)} ms`,
      (worst("200k unbroken") / Math.max(1, worst("short"))).toFixed(1),
      `${elapsed("200k unbroken").toFixed(0)} ms`,
      String(failures),
    ];
  });
  console.log(
    `worst /healthz over ${options.rounds} round(s), ${options.chars.toLocaleString("en")} characters without whitespace; 1-min load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
  );
  console.log(
    renderTable(["route", "short message", "200k unbroken", "ratio", "200k elapsed", "failed polls"], rows),
  );
  await mkdir(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
  await writeFile(RESULTS, `${JSON.stringify({ chars: options.chars, loads, samples }, null, 2)}\n`);
}
