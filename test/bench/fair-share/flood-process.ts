import { tenantRequest } from "./tenant-request.ts";

// Tenant B's flood for the fair-share bench, in a process of its own so that its client work (HTTP,
// JSON) does not share the server's event loop: `flood-process.ts <url> <token>`. 20 parallel clients
// create threads with runs (10 attempts each), then list threads until the parent says "stop" (at most
// 1,000 reads each); then the answers, counted by status and code, go back to the parent. Its clients
// never wait for a 429's Retry-After: each sends its next request as soon as it has the answer.

const [url = "", token = ""] = process.argv.slice(2);
let flooding = true;
process.on("message", (message) => {
  if (message === "stop") flooding = false;
});

const answers = new Map<string, number>();
const count = (key: string) => answers.set(key, (answers.get(key) ?? 0) + 1);
// A refused connection is counted, not thrown: B is hostile, its failures are part of the figure.
const bobRequest = (method: string, path: string, body?: object) =>
  tenantRequest(url, token, method, path, body).catch((error: Error) => ({
    status: 0,
    json: { error: { code: (error.cause as { code?: string } | undefined)?.code ?? error.message } },
  }));

process.send?.({ type: "started" });
await Promise.all(
  Array.from({ length: 20 }, async () => {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const answer = await bobRequest("POST", "/v1/threads", {
        model: "sim",
        simSteps: 20,
        task: "Survey the workspace.",
      });
      count(answer.status === 201 ? "201" : `${answer.status} ${answer.json.error?.code ?? ""}`);
    }
    for (let read = 0; flooding && read < 1_000; read += 1) {
      const answer = await bobRequest("GET", "/v1/threads?limit=50");
      count(answer.status === 200 ? "200 (reads)" : `${answer.status} ${answer.json.error?.code ?? ""}`);
    }
  }),
);
process.send?.({ type: "done", answers: Object.fromEntries(answers) }, () => process.exit(0));
