import type { LongrunEvent } from "@longrun/protocol";

/** One live event's JSON and its prepared frames, by subscription id. */
interface PreparedEvent {
  json: string;
  frames: Map<string, Buffer>;
}

/** Prepared frames of each live event object, shared by every session that forwards it. */
const preparedEvents = new WeakMap<object, PreparedEvent>();

/** The frame prepared last (kept until the next one: one event's bytes, nothing more). */
let last: { event: object | null; subscription: string; bytes: Buffer } = {
  event: null,
  subscription: "",
  bytes: Buffer.alloc(0),
};

/**
 * The `event` frame of one event for one subscription, as the exact bytes of an unmasked WebSocket text
 * frame (RFC 6455 section 5.2: a server's frames are never masked, so they are the same for every
 * connection). It is built once per event object and subscription id — the fan-out hands every session
 * the same object, and clients mostly reuse ids such as `s1` — so a fan-out to a thousand sockets
 * stringifies, converts and frames the event once, and each socket gets one ready buffer. The fan-out's
 * `tenantId` stamp never reaches the wire.
 */
export function preparedEventFrame(subscription: string, event: LongrunEvent): Buffer {
  // A fan-out asks for the same frame a thousand times in a row: answer that without any lookup.
  if (event === last.event && subscription === last.subscription) return last.bytes;
  let prepared = preparedEvents.get(event);
  if (prepared === undefined) {
    const { tenantId: _tenantId, ...rest } = event as LongrunEvent & { tenantId?: string };
    prepared = { json: JSON.stringify(rest), frames: new Map() };
    preparedEvents.set(event, prepared);
  }
  let bytes = prepared.frames.get(subscription);
  if (bytes === undefined) {
    bytes = textFrame(
      `{"type":"event","subscription":${JSON.stringify(subscription)},"event":${prepared.json}}`,
    );
    prepared.frames.set(subscription, bytes);
  }
  last = { event, subscription, bytes };
  return bytes;
}

/** A complete, unmasked, final text frame carrying `text`. */
export function textFrame(text: string): Buffer {
  const length = Buffer.byteLength(text);
  // Payload length: 7 bits, or 126 + 16 bits, or 127 + 64 bits (network byte order).
  const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = 0x81; // FIN + opcode 1 (text)
  if (header === 2) {
    frame[1] = length;
  } else if (header === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  frame.write(text, header, "utf8");
  return frame;
}
