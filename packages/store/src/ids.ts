import { randomBytes } from "node:crypto";

let lastMillis = 0;
let counter = 0;

/**
 * A new time-sortable id (UUIDv7, RFC 9562). Ids made in one process are strictly increasing:
 * within one millisecond a 12-bit counter (in the rand_a field) orders them.
 */
export function newId(now: number = Date.now()): string {
  let millis = now;
  if (millis > lastMillis) {
    lastMillis = millis;
    // Start low in the counter space so a burst within one millisecond rarely overflows it.
    counter = randomBytes(1)[0]!;
  } else {
    millis = lastMillis;
    counter += 1;
    if (counter > 0xfff) {
      // Counter exhausted: borrow the next millisecond rather than break ordering.
      lastMillis += 1;
      millis = lastMillis;
      counter = 0;
    }
  }
  const bytes = randomBytes(16);
  bytes.writeUIntBE(millis, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The millisecond timestamp embedded in a UUIDv7. */
export function idTime(id: string): number {
  return Number.parseInt(id.replaceAll("-", "").slice(0, 12), 16);
}
