/**
 * Exact token count of one long pre-tokenizer piece in linear time.
 *
 * BPE merges inside a piece by scanning every pair for the lowest rank, so a piece of n bytes costs
 * O(n²): 80,000 letters without a space took 2–5 s, 1,000,000 took minutes. Here the piece is encoded
 * in short overlapping windows and the window encodings are stitched where they share a token.
 *
 * Why the stitched sequence is the exact encoding (tiktoken BPE: repeatedly merge the adjacent pair
 * whose concatenation has the lowest rank, leftmost on a tie):
 * 1. A token boundary that survives BPE of a text was never crossed by a merge. So every contiguous
 *    run of tokens of BPE(x) is the BPE of its own bytes: while the boundaries around it stand, the
 *    merges inside it happen in the same order as they would alone.
 * 2. Let H = BPE(x[0, e)) and N = BPE(x[a, f)) with a < e < f, and let T = x[s, t) be a token of both
 *    (same bytes, same position). Then H up to T followed by N after T is BPE(x[0, f)). Proof: run BPE
 *    on x[0, f). Take the first merge that would cross s or t. Up to it, the merges left of t follow
 *    the run of x[0, t) and the merges right of s follow the run of x[s, f) (each picks the lowest
 *    rank among a subset of the pairs the whole run sees). By (1) those runs keep s and t as
 *    boundaries, so neither would ever pick the crossing pair, and a pair that is lowest in the whole
 *    run is lowest in the part. Hence no merge crosses s or t, and each side ends as its own run ends.
 * By induction over the windows the count is exact; `bpe-count.test.ts` checks it against the plain
 * BPE with fast-check. When no shared token turns up, the piece's UTF-8 length is returned: every
 * token holds at least one byte, so it never undercounts.
 */

/** What stitched counting needs from a BPE vocabulary. */
export interface PieceEncoder {
  /**
   * BPE token ids of `text` taken whole, as one piece (no pre-tokenizer). Only called with text
   * longer than the longest token, so the whole-piece vocabulary shortcut never applies.
   */
  encodePiece(text: string): number[];
  /** Length in bytes of a token. */
  tokenBytes(id: number): number;
}

/** Bytes of the longest token of both vocabularies (checked by bpe-count.test.ts). */
export const MAX_TOKEN_BYTES = 128;
/** Bytes a window spans at least: more than the longest token plus a code point, so BPE never
 * takes a whole window as one vocabulary token. */
const WINDOW_BYTES = 2 * MAX_TOKEN_BYTES + 64;
/** Bytes each window adds past the previous one, at least. */
const STRIDE_BYTES = 64;
/** The next window re-encodes at least this many of the held tokens ... */
const BACK_TOKENS = 4;
/** ... and at least this many bytes of the previous window. */
const MIN_OVERLAP_BYTES = 32;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** UTF-8 bytes of the code point starting at `index`, and the UTF-16 units it spans. */
function codePointAt(text: string, index: number): { bytes: number; units: number } {
  const code = text.charCodeAt(index);
  if (code < 0x80) return { bytes: 1, units: 1 };
  if (code < 0x800) return { bytes: 2, units: 1 };
  if (isHighSurrogate(code) && isLowSurrogate(text.charCodeAt(index + 1))) return { bytes: 4, units: 2 };
  return { bytes: 3, units: 1 }; // a lone surrogate is encoded as U+FFFD
}

/** UTF-8 length of a string, as the tokenizer encodes it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; ) {
    const point = codePointAt(text, index);
    bytes += point.bytes;
    index += point.units;
  }
  return bytes;
}

/** A code-point boundary in the piece: its UTF-16 index and UTF-8 offset. */
interface Position {
  index: number;
  byte: number;
}

/** Counts the tokens of `piece`, which the pre-tokenizer produced as one piece. */
export function countLongPiece(piece: string, encoder: PieceEncoder): number {
  const ascii = !/[\u0080-\uffff]/.test(piece);
  const totalBytes = ascii ? piece.length : utf8Length(piece);
  // The last code-point boundary at or before `byte`, walking forward from `from`.
  const boundaryAt = (from: Position, byte: number): Position => {
    if (byte >= totalBytes) return { index: piece.length, byte: totalBytes };
    if (ascii) return { index: byte, byte };
    let { index, byte: offset } = from;
    for (;;) {
      const point = codePointAt(piece, index);
      if (offset + point.bytes > byte) return { index, byte: offset };
      index += point.units;
      offset += point.bytes;
    }
  };

  let committed = 0;
  // The held tail: tokens of the latest window after the last stitch, as absolute byte spans.
  let tailStarts: number[] = [];
  let tailEnds: number[] = [];
  let start: Position = { index: 0, byte: 0 };
  let end = boundaryAt(start, WINDOW_BYTES);
  for (let first = true; ; first = false) {
    if (totalBytes - end.byte < WINDOW_BYTES) end = { index: piece.length, byte: totalBytes };
    const starts: number[] = [];
    const ends: number[] = [];
    let byte = start.byte;
    for (const id of encoder.encodePiece(piece.slice(start.index, end.index))) {
      starts.push(byte);
      byte += encoder.tokenBytes(id);
      ends.push(byte);
    }

    if (first) {
      tailStarts = starts;
      tailEnds = ends;
    } else {
      const shared = findShared(tailStarts, tailEnds, starts, ends);
      if (shared === null) return totalBytes;
      committed += shared.held + 1;
      tailStarts = starts.slice(shared.window + 1);
      tailEnds = ends.slice(shared.window + 1);
    }
    if (end.index >= piece.length) return committed + tailStarts.length;

    // The next window starts at a held token a few tokens and bytes back, so it shares tokens
    // with the tail; starting on a token keeps periodic text ("aaaa…") aligned with its tokens.
    let back = Math.max(0, tailStarts.length - BACK_TOKENS);
    while (back > 0 && (tailStarts[back] as number) > end.byte - MIN_OVERLAP_BYTES) back--;
    const next = boundaryAt(start, tailStarts[back] as number);
    // Each window adds at least as many new bytes as it re-encodes, so every byte is encoded about
    // twice at most, whatever the token lengths.
    const overlap = end.byte - next.byte;
    end = boundaryAt(next, Math.max(end.byte + Math.max(STRIDE_BYTES, overlap), next.byte + WINDOW_BYTES));
    start = next;
  }
}

/** Leftmost token (same bytes at the same place) of both the held tail and the new window. */
function findShared(
  heldStarts: number[],
  heldEnds: number[],
  windowStarts: number[],
  windowEnds: number[],
): { held: number; window: number } | null {
  let held = 0;
  let window = 0;
  while (held < heldStarts.length && window < windowStarts.length) {
    const heldStart = heldStarts[held] as number;
    const windowStart = windowStarts[window] as number;
    if (heldStart < windowStart) held++;
    else if (heldStart > windowStart) window++;
    else {
      if (heldEnds[held] === windowEnds[window]) return { held, window };
      held++;
      window++;
    }
  }
  return null;
}
