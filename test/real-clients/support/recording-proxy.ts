import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a client sent, as it reached longrun. */
export interface RecordedRequest {
  at: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  status: number;
  /** The answer's body when it was JSON (not a stream), once it has been sent. */
  response?: unknown;
  /** The answer's server-sent events as text, when it was a stream, once it has ended. */
  events?: string;
}

/**
 * A loopback proxy in front of longrun that records what a real client sends (and the status it got),
 * so a test can count requests and look for the client's own compaction requests. `beforeForward`
 * may hold a request (its promise) before it goes on, so a test can act while it is held.
 */
export async function startRecordingProxy(
  target: string,
  options: { beforeForward?: (record: RecordedRequest) => Promise<void> } = {},
): Promise<{
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}> {
  const upstream = new URL(target);
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const raw = Buffer.concat(chunks);
      let body: unknown = null;
      try {
        body = raw.length > 0 ? JSON.parse(raw.toString("utf8")) : null;
      } catch {
        body = raw.toString("utf8");
      }
      const record: RecordedRequest = {
        at: Date.now(),
        method: incoming.method ?? "GET",
        path: incoming.url ?? "/",
        headers: incoming.headers,
        body,
        status: 0,
      };
      requests.push(record);
      void (options.beforeForward?.(record) ?? Promise.resolve()).then(() => send(raw, record));
    });
    const send = (raw: Buffer, record: RecordedRequest) => {
      const forward = httpRequest(
        {
          hostname: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: upstream.host, "content-length": String(raw.length) },
        },
        (response) => {
          record.status = response.statusCode ?? 0;
          outgoing.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(outgoing);
          const type = String(response.headers["content-type"]);
          if (type.startsWith("text/event-stream")) {
            const frames: Buffer[] = [];
            response.on("data", (chunk: Buffer) => frames.push(chunk));
            response.on("end", () => {
              record.events = Buffer.concat(frames).toString("utf8");
            });
          }
          if (type.startsWith("application/json")) {
            const answer: Buffer[] = [];
            response.on("data", (chunk: Buffer) => answer.push(chunk));
            response.on("end", () => {
              try {
                record.response = JSON.parse(Buffer.concat(answer).toString("utf8"));
              } catch {
                record.response = Buffer.concat(answer).toString("utf8");
              }
            });
          }
        },
      );
      forward.on("error", (error) => {
        record.status = 502;
        outgoing.writeHead(502, { "content-type": "application/json" });
        outgoing.end(JSON.stringify({ error: { message: String(error), type: "proxy_error", code: null } }));
      });
      outgoing.on("close", () => forward.destroy());
      forward.end(raw);
    };
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
