import { ClientFrame, LongrunError, type ServerFrame, type SubscribeFrame } from "@longrun/protocol";
import { LiveFanout } from "./live-fanout.ts";
import { Subscription } from "./subscription.ts";
import {
  CLOSE_CODES,
  DEFAULT_SOCKET_OPTIONS,
  type SessionTransport,
  type SocketDeps,
  type SocketOptions,
} from "./types.ts";

/** One client connection's protocol logic, independent of the socket library. */
export interface SocketSession {
  readonly tenantId: string;
  /** Parses and handles one text frame from the client. */
  receive(text: string): void;
  /** Handles one already-parsed frame. */
  handle(frame: ClientFrame): Promise<void>;
  /** Records that the peer is alive (it answered a protocol ping). */
  alive(): void;
  /** Sends a `closing` frame and closes the transport. */
  shutdown(code: number, reason: string): void;
  /** Releases subscriptions and timers; call when the transport closed. */
  dispose(): void;
  subscriptionCount(): number;
}

export interface CreateSessionInput {
  tenantId: string;
  deps: SocketDeps;
  transport: SessionTransport;
  options?: Partial<SocketOptions>;
  /** The gateway's shared live fan-out; a session without one attaches to `deps.live` by itself. */
  fanout?: LiveFanout;
}

/** Creates the session for one authenticated connection and starts its heartbeat. */
export function createSession(input: CreateSessionInput): SocketSession {
  const { tenantId, deps, transport } = input;
  const options: SocketOptions = { ...DEFAULT_SOCKET_OPTIONS, ...input.options };
  const fanout = input.fanout ?? new LiveFanout(deps.live);
  const subscriptions = new Map<string, Subscription>();
  // Liveness: whether anything (a pong or a frame) arrived since the last protocol ping.
  let answered = true;
  let closed = false;

  const send = (frame: ServerFrame): void => {
    if (!closed) transport.send(frame);
  };

  const dispose = (): void => {
    closed = true;
    clearInterval(heartbeat);
    for (const subscription of subscriptions.values()) subscription.close();
    subscriptions.clear();
  };

  const shutdown = (code: number, reason: string): void => {
    if (closed) return;
    transport.send({ type: "closing", reason });
    dispose();
    transport.close(code, reason);
  };

  // Liveness rests on protocol ping/pong, which browsers and `ws` answer without application code, so a
  // client that only listens is never closed for silence. The `heartbeat` frame lets clients that cannot
  // see protocol pings (browsers) notice a silent server; nobody has to answer it.
  const heartbeat = setInterval(() => {
    if (!answered) {
      shutdown(CLOSE_CODES.pingTimeout, "ping timeout");
      return;
    }
    answered = false;
    transport.ping();
    send({ type: "heartbeat", at: deps.now() });
  }, options.heartbeatMs);
  heartbeat.unref?.();

  const sendError = (id: string | undefined, error: unknown): void => {
    const code = LongrunError.isInstance(error) ? error.code : "internal";
    const message = error instanceof Error ? error.message : String(error);
    send({ type: "error", ...(id === undefined ? {} : { id }), code, message });
  };

  const subscribe = async (frame: SubscribeFrame): Promise<void> => {
    if (subscriptions.has(frame.id)) {
      send({ type: "error", id: frame.id, code: "conflict", message: `subscription ${frame.id} exists` });
      return;
    }
    const subscription = new Subscription(frame, {
      tenantId,
      deps,
      options,
      fanout,
      send,
      transport,
      slow: (reason) => shutdown(CLOSE_CODES.slowConsumer, reason),
      fail: (error) => {
        subscriptions.delete(frame.id);
        subscription.close();
        sendError(frame.id, error);
      },
      congested: () => transport.bufferedAmount() > options.maxBufferedBytes / 4,
    });
    subscriptions.set(frame.id, subscription);
    try {
      const start = await subscription.start();
      if (subscriptions.get(frame.id) !== subscription) {
        subscription.close();
        return;
      }
      if (!start) {
        subscriptions.delete(frame.id);
        subscription.close();
        // Same answer for "missing" and "another tenant's": existence must not leak across tenants.
        send({
          type: "error",
          id: frame.id,
          code: "forbidden",
          message: "thread not found or not accessible",
        });
        return;
      }
      send({
        type: "subscribed",
        id: frame.id,
        headSeq: start.headSeq,
        ...(start.heads ? { heads: start.heads } : {}),
      });
      await subscription.run();
    } catch (error) {
      subscriptions.delete(frame.id);
      subscription.close();
      sendError(frame.id, error);
    }
  };

  const handle = async (frame: ClientFrame): Promise<void> => {
    if (closed) return;
    switch (frame.type) {
      case "subscribe":
        await subscribe(frame);
        return;
      case "unsubscribe": {
        const subscription = subscriptions.get(frame.id);
        subscriptions.delete(frame.id);
        subscription?.close();
        send({ type: "ack", id: frame.id, ok: subscription !== undefined });
        return;
      }
      case "command":
        try {
          const result = await deps.commands.execute(tenantId, frame.command);
          send({ type: "ack", id: frame.id, ok: true, result });
        } catch (error) {
          sendError(frame.id, error);
        }
        return;
      case "ack":
        subscriptions.get(frame.id)?.acknowledge(frame.threadId, frame.seq);
        return;
      case "ping":
        send({ type: "pong", ...(frame.at === undefined ? {} : { at: frame.at }) });
        return;
      default: {
        const exhaustive: never = frame;
        return exhaustive;
      }
    }
  };

  const receive = (text: string): void => {
    if (closed) return;
    answered = true;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      // Answered to the client as a bad_frame error.
      send({ type: "error", code: "bad_frame", message: "frame is not valid JSON" });
      return;
    }
    const parsed = ClientFrame.safeParse(raw);
    if (!parsed.success) {
      const id = typeof raw === "object" && raw !== null ? (raw as { id?: unknown }).id : undefined;
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
      send({
        type: "error",
        ...(typeof id === "string" ? { id } : {}),
        code: "bad_frame",
        message: `invalid frame${where}: ${issue?.message ?? "unknown shape"}`,
      });
      return;
    }
    handle(parsed.data).catch((error: unknown) => sendError(undefined, error));
  };

  return {
    tenantId,
    receive,
    handle,
    alive: () => {
      answered = true;
    },
    shutdown,
    dispose,
    subscriptionCount: () => subscriptions.size,
  };
}
