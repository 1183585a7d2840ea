import type { ChatMessage, ToolStatus } from "@longrun/protocol";

/** Where a projected message came from (GET /context `marks`). */
export type ProjectionMark =
  | "system"
  | "prefix"
  | "summary"
  | "restored"
  | "pinned"
  | "raw"
  | "repaired"
  | "collapsed";

/** One message of a projection under construction, with what the stages need to know. */
export interface ProjectionItem {
  message: ChatMessage;
  mark: ProjectionMark;
  /** Token estimate of `message`; kept in step whenever a stage rewrites it. */
  tokens: number;
  /** Fact id for raw messages. */
  sourceId?: string;
  /** Tool result status for tool messages. */
  status?: ToolStatus;
  /** Must reach the model verbatim (latest user message, active tool loop): stages skip it. */
  locked?: boolean;
}

/** What one deterministic stage did. */
export interface StageResult {
  items: ProjectionItem[];
  /** Estimated tokens removed. */
  saved: number;
  /** Human-readable account of what was removed ("" when nothing). */
  removed: string;
}

/** One deterministic stage's account. */
export interface StageReport {
  name: "collapse" | "truncate" | "microcompact";
  tokensBefore: number;
  tokensAfter: number;
  removed: string;
}

/** Each deterministic stage, as a function of the items it reduces. */
export type StageRuns = Record<StageReport["name"], (items: readonly ProjectionItem[]) => StageResult>;

/** The account of a stage that did not run because the request was under the trigger. */
export function notRun(name: StageReport["name"], tokens: number): StageReport {
  return { name, tokensBefore: tokens, tokensAfter: tokens, removed: "not run: under trigger" };
}
