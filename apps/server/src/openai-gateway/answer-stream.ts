import type { AnswerEvent } from "@longrun/openai-compat";
import type { ClientTurnResult, TurnSink } from "@longrun/runtime";

/** How one API tells an answer as it streams. */
export interface StreamFormat {
  start(): string[];
  event(event: AnswerEvent): string[];
  finish(result: ClientTurnResult): string[];
  fail(code: string, message: string): string[];
}

/**
 * Runs a turn and streams its answer as server-sent events. Until the answer begins, a failure
 * rejects (the caller answers with an HTTP error status); after it, the failure is told in the stream.
 */
export async function streamAnswer(
  run: (sink: TurnSink) => Promise<ClientTurnResult>,
  format: StreamFormat,
  onCancel: () => void,
  describe: (error: unknown) => { code: string; message: string },
): Promise<Response> {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  const body = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
    },
    cancel() {
      open = false;
      onCancel();
    },
  });
  const write = (frames: string[]) => {
    if (!open) return;
    for (const frame of frames) controller.enqueue(encoder.encode(frame));
  };
  const close = () => {
    if (!open) return;
    open = false;
    controller.close();
  };
  let began = false;
  let announceBegin: () => void = () => undefined;
  const begun = new Promise<void>((resolve) => {
    announceBegin = resolve;
  });
  const finished = run({
    begin() {
      began = true;
      write(format.start());
      announceBegin();
    },
    event(event) {
      write(format.event(event));
    },
  }).then(
    (result) => {
      write(format.finish(result));
      close();
    },
    (error: unknown) => {
      if (!began) throw error;
      const { code, message } = describe(error);
      write(format.fail(code, message));
      close();
    },
  );
  await Promise.race([begun, finished]);
  // After the stream began, a failure is written into it (above); this copy only keeps it handled.
  finished.catch(() => undefined);
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
    },
  });
}

/** Runs a turn to its end and collects the events of its answer (a non-streaming request). */
export async function collectAnswer(
  run: (sink: TurnSink) => Promise<ClientTurnResult>,
): Promise<{ result: ClientTurnResult; events: AnswerEvent[] }> {
  const events: AnswerEvent[] = [];
  const result = await run({ begin: () => undefined, event: (event) => events.push(event) });
  return { result, events };
}
