import { ServerFrame } from "@longrun/protocol";
import type { ClientSubscription } from "./client-subscription.ts";
import { errorForCode, LongrunError } from "./errors.ts";

/** What a frame from the server can act on: the connection's subscriptions and pending commands. */
export interface FrameTarget {
  subscription(id: string): ClientSubscription | undefined;
  /** An acknowledgement (or refusal) of command `id`. */
  settleCommand(id: string, outcome: { ok: true; result: unknown } | { ok: false; error: Error }): boolean;
  /** An error frame, about a command, a subscription or (no id) the connection. */
  onErrorFrame(id: string | undefined, error: LongrunError): void;
  /** The server said why it is about to close the socket. */
  onClosing(reason: string): void;
  /** The server sent something that is not a frame of the protocol. */
  onBadFrame(error: LongrunError): void;
}

/** Parses one text frame from the server and hands it to `target`. */
export function dispatchServerFrame(text: string, target: FrameTarget): void {
  let parsed: ReturnType<typeof ServerFrame.safeParse>;
  try {
    parsed = ServerFrame.safeParse(JSON.parse(text));
  } catch {
    target.onBadFrame(new LongrunError("server sent invalid JSON", { code: "bad_frame" }));
    return;
  }
  if (!parsed.success) {
    target.onBadFrame(new LongrunError("server sent an unknown frame", { code: "bad_frame" }));
    return;
  }
  const frame = parsed.data;
  switch (frame.type) {
    case "event":
      target.subscription(frame.subscription)?.onEvent(frame.event);
      return;
    case "subscribed":
      target.subscription(frame.id)?.onSubscribed(frame.headSeq, frame.heads);
      return;
    case "resync":
      target.subscription(frame.id)?.onResync({
        threadId: frame.threadId,
        reason: frame.reason,
        requestedSince: frame.requestedSince,
        oldestSeq: frame.oldestSeq,
        resumeAfter: frame.resumeAfter,
      });
      return;
    case "ack":
      target.settleCommand(
        frame.id,
        frame.ok
          ? { ok: true, result: frame.result }
          : { ok: false, error: new LongrunError("command was not acknowledged") },
      );
      return;
    case "error":
      target.onErrorFrame(frame.id, errorForCode(frame.code, frame.message));
      return;
    case "heartbeat":
      // Only proof that the server is alive (the connection saw traffic); the server's own liveness check
      // uses protocol pings, which the WebSocket implementation answers, so nothing is sent back.
      return;
    case "closing":
      target.onClosing(frame.reason);
      return;
    case "pong":
      return;
    default: {
      const exhaustive: never = frame;
      throw new Error(`unhandled frame ${JSON.stringify(exhaustive)}`);
    }
  }
}
