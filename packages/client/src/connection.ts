import type { ClientFrame, Command } from "@longrun/protocol";
import { type BackoffOptions, reconnectDelay } from "./backoff.ts";
import type { ClientSubscription, ConnectionStatus } from "./client-subscription.ts";
import { AbortError, AuthenticationError, ConnectionError, type LongrunError } from "./errors.ts";
import { PendingCommands } from "./pending-commands.ts";
import { dispatchServerFrame, type FrameTarget } from "./server-frames.ts";
import { SOCKET_OPEN, type WebSocketConstructor, type WebSocketLike } from "./websocket-like.ts";

export interface ConnectionOptions {
  url: string;
  WebSocket: WebSocketConstructor;
  backoff: BackoffOptions;
  /** Reconnect when the server has sent nothing (not even a `heartbeat` frame) for this long. */
  idleTimeoutMs: number;
  /** Reject a command that has no acknowledgement after this long. */
  commandTimeoutMs: number;
  /** Delay before sending batched acknowledgements. */
  ackDelayMs: number;
  /**
   * Asked after a socket failed before opening: false when the token is refused. A refused upgrade looks
   * like any network failure to a WebSocket client, so without this a bad token would retry forever.
   */
  probeAuth?: () => Promise<boolean>;
}

/** How long an otherwise unused socket stays open after a command. */
const LINGER_MS = 1_000;
/** Subscription refusals that a retry cannot fix. */
const PERMANENT_CODES = new Set(["forbidden", "not_found", "bad_frame", "conflict", "unauthorized"]);

/**
 * One multiplexed socket shared by a client's subscriptions and commands. It opens on demand, reconnects
 * with capped exponential backoff while anything needs it, and resubscribes each subscription from the last
 * seq it saw.
 */
export class Connection {
  private socket: WebSocketLike | null = null;
  private readonly subscriptions = new Map<string, ClientSubscription>();
  private readonly commands: PendingCommands;
  /** Frames waiting for the socket to open (commands issued while connecting). */
  private readonly outbox: ClientFrame[] = [];
  private attempt = 0;
  private nextId = 0;
  private closed = false;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  private ackTimer: ReturnType<typeof setTimeout> | null = null;
  private lingerTimer: ReturnType<typeof setTimeout> | null = null;
  private lastClosingReason: string | undefined;

  constructor(private readonly options: ConnectionOptions) {
    this.commands = new PendingCommands(options.commandTimeoutMs, () => this.closeIfUnused());
  }

  /** A fresh id for a subscription or command. */
  newId(prefix: string): string {
    this.nextId += 1;
    return `${prefix}${this.nextId}`;
  }

  add(subscription: ClientSubscription): void {
    this.subscriptions.set(subscription.id, subscription);
    if (this.socket?.readyState === SOCKET_OPEN) {
      this.write(subscription.subscribeFrame());
      // The socket opened for an earlier subscription: this one still learns that it is live.
      subscription.handlers.onStatus?.("open");
    } else this.ensureConnecting("connecting");
  }

  remove(subscription: ClientSubscription): void {
    if (!this.subscriptions.delete(subscription.id)) return;
    subscription.abandon(new AbortError("the subscription was closed before the server confirmed it"));
    if (this.socket?.readyState === SOCKET_OPEN) this.write({ type: "unsubscribe", id: subscription.id });
    subscription.handlers.onStatus?.("closed");
    this.closeIfUnused();
  }

  /** Sends a command and resolves with the server's acknowledgement result. */
  command(command: Command): Promise<unknown> {
    if (this.closed) return Promise.reject(new ConnectionError("client is closed", { code: "unavailable" }));
    const id = this.newId("c");
    const acknowledged = this.commands.wait(id);
    const frame: ClientFrame = { type: "command", id, command };
    if (this.socket?.readyState === SOCKET_OPEN) this.write(frame);
    else {
      this.outbox.push(frame);
      this.ensureConnecting("connecting");
    }
    return acknowledged;
  }

  /** Closes the socket for good and ends every subscription and command. */
  close(): void {
    this.closed = true;
    this.clearTimers();
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000, "client closed");
    for (const subscription of this.subscriptions.values()) {
      subscription.abandon(new ConnectionError("client closed", { code: "unavailable" }));
      subscription.handlers.onStatus?.("closed");
    }
    this.subscriptions.clear();
    this.commands.rejectAll("client closed");
  }

  /** Asks for the subscriptions' acknowledgements to be sent, now or after a short delay. */
  requestAckFlush(urgent: boolean): void {
    if (urgent) {
      this.flushAcks();
      return;
    }
    this.ackTimer ??= setTimeout(() => this.flushAcks(), this.options.ackDelayMs);
  }

  private flushAcks(): void {
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ackTimer = null;
    if (this.socket?.readyState !== SOCKET_OPEN) return;
    for (const subscription of this.subscriptions.values()) {
      for (const frame of subscription.takeAcks()) this.write(frame);
    }
  }

  private ensureConnecting(status: ConnectionStatus): void {
    if (this.closed || this.socket || this.reconnectTimer) return;
    this.broadcastStatus(status);
    this.open();
  }

  private open(): void {
    const socket = new this.options.WebSocket(this.options.url);
    this.socket = socket;
    let opened = false;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      opened = true;
      this.attempt = 0;
      this.lastClosingReason = undefined;
      this.touch();
      this.broadcastStatus("open");
      for (const subscription of this.subscriptions.values()) {
        subscription.resetAcks();
        this.write(subscription.subscribeFrame());
      }
      for (const frame of this.outbox.splice(0)) this.write(frame);
    };
    socket.onmessage = (message) => {
      if (this.socket !== socket) return;
      this.touch();
      if (typeof message.data === "string") this.receive(message.data);
    };
    socket.onerror = () => {
      // Always followed by onclose, which decides what happens next.
    };
    socket.onclose = (event) => this.onClosed(socket, event.code, event.reason, opened);
  }

  private onClosed(socket: WebSocketLike, code: number, reason: string, opened = true): void {
    if (this.socket !== socket) return;
    this.socket = null;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.commands.rejectAll(`connection closed (${code})`);
    this.outbox.length = 0;
    // The server's closing reason explains this close only: later failed attempts say their own.
    const why = this.lastClosingReason ?? (reason || `closed with code ${code}`);
    this.lastClosingReason = undefined;
    this.scheduleReconnect(why, !opened);
  }

  private scheduleReconnect(reason: string, neverOpened: boolean): void {
    if (this.closed || this.subscriptions.size === 0) return;
    const delayMs = reconnectDelay(this.attempt, this.options.backoff);
    this.attempt += 1;
    this.broadcastStatus("reconnecting", { attempt: this.attempt, delayMs, reason });
    // The timer handle stays set while reconnecting (probe included), so nothing opens a second socket.
    this.reconnectTimer = setTimeout(() => void this.reconnect(neverOpened), delayMs);
  }

  private async reconnect(neverOpened: boolean): Promise<void> {
    const probe = this.options.probeAuth;
    const authorized = neverOpened && probe ? await probe() : true;
    this.reconnectTimer = null;
    if (this.closed || this.socket || this.subscriptions.size === 0) return;
    if (authorized) {
      this.open();
      return;
    }
    const error = new AuthenticationError("the server refused the token", {
      status: 401,
      code: "unauthorized",
    });
    for (const subscription of this.subscriptions.values()) {
      subscription.fail(error);
      subscription.handlers.onStatus?.("closed", { reason: error.message });
    }
    this.subscriptions.clear();
    this.closeIfUnused();
  }

  private receive(text: string): void {
    dispatchServerFrame(text, {
      subscription: (id) => this.subscriptions.get(id),
      settleCommand: (id, outcome) => this.settleCommand(id, outcome),
      onErrorFrame: (id, error) => this.onErrorFrame(id, error),
      onClosing: (reason) => {
        this.lastClosingReason = reason;
      },
      onBadFrame: (error) => this.broadcastError(error),
    });
  }

  private onErrorFrame(id: string | undefined, error: LongrunError): void {
    if (id !== undefined && this.settleCommand(id, { ok: false, error })) return;
    const subscription = id === undefined ? undefined : this.subscriptions.get(id);
    if (!subscription) {
      this.broadcastError(error);
      return;
    }
    if (PERMANENT_CODES.has(error.code)) {
      this.subscriptions.delete(subscription.id);
      subscription.fail(error);
      subscription.handlers.onStatus?.("closed", { reason: error.message });
      this.closeIfUnused();
      return;
    }
    // A transient server failure dropped the subscription: resubscribe from where it stood.
    subscription.handlers.onError?.(error);
    const delayMs = reconnectDelay(0, this.options.backoff);
    setTimeout(() => {
      if (
        this.subscriptions.get(subscription.id) === subscription &&
        this.socket?.readyState === SOCKET_OPEN
      ) {
        this.write(subscription.subscribeFrame());
      }
    }, delayMs);
  }

  private settleCommand(id: string, outcome: Parameters<FrameTarget["settleCommand"]>[1]): boolean {
    if (!this.commands.settle(id, outcome)) return false;
    this.lingerThenClose();
    return true;
  }

  /** After a command, keep the socket briefly: commands often come in bursts. */
  private lingerThenClose(): void {
    if (this.subscriptions.size > 0 || this.commands.size > 0) return;
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    this.lingerTimer = setTimeout(() => {
      this.lingerTimer = null;
      this.closeIfUnused();
    }, LINGER_MS);
  }

  /** With nothing left to serve, the socket is closed so a Node process can exit. */
  private closeIfUnused(): void {
    if (this.subscriptions.size > 0 || this.commands.size > 0) return;
    this.clearTimers();
    const socket = this.socket;
    this.socket = null;
    this.attempt = 0;
    socket?.close(1000, "no subscriptions");
  }

  private write(frame: ClientFrame): void {
    this.socket?.send(JSON.stringify(frame));
  }

  private touch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const socket = this.socket;
    this.idleTimer = setTimeout(() => {
      // A silent server (half-open TCP) is treated as a lost connection.
      if (this.socket !== socket || !socket) return;
      // Do not wait for a closing handshake the peer may never answer.
      socket.close(4000, "server silent");
      this.onClosed(socket, 4000, "server silent");
    }, this.options.idleTimeoutMs);
  }

  private clearTimers(): void {
    for (const timer of [this.reconnectTimer, this.idleTimer, this.ackTimer, this.lingerTimer]) {
      if (timer) clearTimeout(timer);
    }
    this.lingerTimer = null;
    this.reconnectTimer = null;
    this.idleTimer = null;
    this.ackTimer = null;
  }

  private broadcastStatus(
    status: ConnectionStatus,
    detail?: { attempt: number; delayMs: number; reason: string },
  ) {
    for (const subscription of this.subscriptions.values()) subscription.handlers.onStatus?.(status, detail);
  }

  private broadcastError(error: Error): void {
    for (const subscription of this.subscriptions.values()) subscription.handlers.onError?.(error);
  }
}
