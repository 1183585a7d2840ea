import type { Duplex } from "node:stream";
import type { LongrunEvent, ServerFrame } from "@longrun/protocol";
import { WebSocket } from "ws";
import { encodeFrame } from "./encode-frame.ts";
import { preparedEventFrame } from "./prepared-frame.ts";
import type { SessionTransport } from "./types.ts";
import type { BatchMember, WriteBatch } from "./write-batch.ts";

/** Bytes a socket may hold corked before they are written anyway (flow control reads the buffered size). */
const MAX_BATCH_BYTES = 64 * 1024;
/** How long a closing handshake may take before the socket is destroyed. */
export const CLOSE_GRACE_MS = 2_000;

/**
 * A session's transport over one `ws` connection. `socket` is the stream ws writes its frames to; from the
 * second frame of an event-loop run on it is corked until the write batch ends the run (write-batch.ts).
 */
export class WsTransport implements SessionTransport, BatchMember {
  private corked = false;
  private heldBytes = 0;
  /** The batch run in which this socket last wrote. */
  private lastRun = -1;

  constructor(
    private readonly ws: WebSocket,
    private readonly socket: Duplex,
    private readonly batch: WriteBatch,
  ) {}

  send(frame: ServerFrame): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    const text = encodeFrame(frame);
    this.hold(text.length);
    this.ws.send(text);
  }

  /**
   * Writes the event's prepared frame straight to the socket, past ws's per-message framing: the bytes
   * are the same for every connection. Safe because the server negotiates no extension (ws's
   * perMessageDeflate is off), so ws's sender never queues frames that this write could overtake.
   */
  sendEvent(subscription: string, event: LongrunEvent): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    const frame = preparedEventFrame(subscription, event);
    this.hold(frame.length);
    this.socket.write(frame);
  }

  close(code: number, reason: string): void {
    this.ws.close(code, reason);
    // A peer that does not answer pings or read its socket will not complete the closing handshake.
    setTimeout(() => this.ws.terminate(), CLOSE_GRACE_MS).unref();
  }

  ping(): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.ping();
  }

  bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  release(): void {
    if (!this.corked) return;
    this.corked = false;
    this.heldBytes = 0;
    this.socket.uncork();
  }

  /**
   * Called before each write: the first frame of a run goes out at once; from the second on the socket
   * is corked until the run ends, or until the held bytes pass the bound.
   */
  private hold(bytes: number): void {
    if (!this.corked) {
      if (this.lastRun !== this.batch.run) {
        this.lastRun = this.batch.run;
        this.batch.touch();
        return;
      }
      this.corked = true;
      this.socket.cork();
      this.batch.enlist(this);
    }
    this.heldBytes += bytes;
    if (this.heldBytes < MAX_BATCH_BYTES) return;
    // A large batch (a replay page of big events) is written now, so buffered bytes mean unread bytes.
    this.heldBytes = 0;
    this.socket.uncork();
    this.socket.cork();
  }
}
