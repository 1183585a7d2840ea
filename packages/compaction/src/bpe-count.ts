import type { TokenizerFamily } from "@longrun/protocol";
import { BytePairEncodingCore } from "gpt-tokenizer/BytePairEncodingCore";
import cl100kRanks from "gpt-tokenizer/bpeRanks/cl100k_base";
import o200kRanks from "gpt-tokenizer/bpeRanks/o200k_base";
import * as cl100k from "gpt-tokenizer/encoding/cl100k_base";
import * as o200k from "gpt-tokenizer/encoding/o200k_base";
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";
import { countLongPiece, type PieceEncoder } from "./long-piece.ts";

/**
 * Pieces longer than this are counted in stitched windows (long-piece.ts). BPE costs O(n²) in a
 * piece's length, so this bounds the work per character for every input.
 */
export const LONG_PIECE = 256;

const WHITESPACE = /^\s+$/u;

// Special-token strings inside user text are plain text to us, never control tokens.
const plainText = { disallowedSpecial: new Set<string>() };

/** A BPE vocabulary with the pieces of its pre-tokenizer exposed. */
export interface Encoding extends PieceEncoder {
  /** The library's own count of a text. */
  count(text: string): number;
  /** Global, Unicode pre-tokenizer pattern. */
  split: RegExp;
}

/** The gpt-tokenizer vocabulary of a family, as `countText` uses it. */
export function createEncoding(family: TokenizerFamily): Encoding {
  const api = family === "cl100k_base" ? cl100k : o200k;
  const ranks = family === "cl100k_base" ? cl100kRanks : o200kRanks;
  const split = family === "cl100k_base" ? CL100K_TOKEN_SPLIT_REGEX : O200K_TOKEN_SPLIT_REGEX;
  // The library's own merge, with a pre-tokenizer that takes the whole text as one piece; built on
  // first use (it indexes the vocabulary again, ~8 MB), without a cache (windows rarely repeat).
  let whole: BytePairEncodingCore | undefined;
  // Byte lengths of tokens, filled on first use: only inputs with long pieces ever need them.
  const lengths = new Uint8Array(ranks.length);
  const encoder = new TextEncoder();
  return {
    count: (text) => api.countTokens(text, plainText),
    split: new RegExp(split.source, "gu"),
    encodePiece(text) {
      whole ??= new BytePairEncodingCore({
        bytePairRankDecoder: ranks,
        tokenSplitRegex: /[\s\S]+/gu,
        mergeCacheSize: 0,
      });
      return whole.encodeNative(text);
    },
    tokenBytes(id) {
      let length = lengths[id] as number;
      if (length === 0) {
        const value = ranks[id];
        length = typeof value === "string" ? encoder.encode(value).length : (value?.length ?? 1);
        lengths[id] = length;
      }
      return length;
    },
  };
}

/**
 * True when no pre-tokenizer piece of `text` can exceed LONG_PIECE characters. Of both vocabularies'
 * pieces, only whitespace runs hold a space after their first character; so a long piece needs a
 * long stretch without U+0020 or a long run of (possibly) whitespace. One pass, no regex.
 */
export function piecesAreShort(text: string): boolean {
  let spaceFree = 0;
  let whitespace = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    spaceFree = code === 32 ? 0 : spaceFree + 1;
    // Non-ASCII characters are counted as possible whitespace (U+3000, U+00A0, ...).
    whitespace = code === 32 || (code >= 9 && code <= 13) || code >= 0x80 ? whitespace + 1 : 0;
    if (spaceFree >= LONG_PIECE || whitespace >= LONG_PIECE) return false;
  }
  return true;
}

/** Exact BPE count of `text` whose cost grows linearly with its length. */
export function countText(encoding: Encoding, text: string): number {
  if (text.length <= LONG_PIECE || piecesAreShort(text)) return encoding.count(text);
  // The library counts the stretches between long pieces. A stretch is cut only where a piece ends,
  // so each piece keeps its place, with one exception: whitespace right before a long piece is split
  // by a lookahead at the next character, which a cut stretch no longer sees. Those pieces (known
  // from this pass over the whole text) are counted one by one.
  const split = new RegExp(encoding.split);
  let total = 0;
  let shortFrom = 0;
  let whitespaceFrom = -1;
  for (let match = split.exec(text); match !== null; match = split.exec(text)) {
    const piece = match[0];
    if (piece.length <= LONG_PIECE) {
      if (!WHITESPACE.test(piece)) whitespaceFrom = -1;
      else if (whitespaceFrom < 0) whitespaceFrom = match.index;
      continue;
    }
    const cut = whitespaceFrom < 0 ? match.index : whitespaceFrom;
    if (cut > shortFrom) total += encoding.count(text.slice(shortFrom, cut));
    if (cut < match.index) {
      split.lastIndex = cut;
      for (
        let inner = split.exec(text);
        inner !== null && inner.index < match.index;
        inner = split.exec(text)
      ) {
        total += encoding.count(inner[0]);
      }
    }
    total += countLongPiece(piece, encoding);
    shortFrom = match.index + piece.length;
    split.lastIndex = shortFrom;
    whitespaceFrom = -1;
  }
  if (shortFrom < text.length) total += encoding.count(text.slice(shortFrom));
  return total;
}

const encodings = new Map<TokenizerFamily, Encoding>();

/** The exact BPE token count of `text` in a vocabulary, in time linear in its length. */
export function countBpe(family: TokenizerFamily, text: string): number {
  let encoding = encodings.get(family);
  if (!encoding) {
    encoding = createEncoding(family);
    encodings.set(family, encoding);
  }
  return countText(encoding, text);
}
