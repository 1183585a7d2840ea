import { planRestoration, type Tokenizer } from "@longrun/compaction";
import type { ChatMessage, CompactionEvent } from "@longrun/protocol";
import { restoredFilesOf } from "./projection.ts";

/** The files a compaction restored, rebuilt from the event alone (deterministic, for fork prefixes). */
export function restoredMessages(compaction: CompactionEvent, tokenizer: Tokenizer): ChatMessage[] {
  return planRestoration({ files: restoredFilesOf(compaction), state: null, tokenizer }).messages;
}
