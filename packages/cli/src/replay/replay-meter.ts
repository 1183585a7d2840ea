import {
  BillingChain,
  type PricedCall,
  RequestPartCounter,
  type SummaryRequest,
  type Tokenizer,
  type ToolSpec,
} from "@longrun/compaction";
import type { ChatMessage } from "@longrun/protocol";
import { ForwardUse } from "./forward-use.ts";
import type { ReplayStep } from "./report.ts";
import type { Transcript } from "./transcript.ts";

/** Input of ReplayMeter. */
export interface ReplayMeterOptions {
  transcript: Transcript;
  tools: readonly ToolSpec[];
  tokenizer: Tokenizer;
  outputRatio: number;
  forwardN: number;
}

/**
 * Measures what longrun's replay sends: prices every call of the thread in order (summary calls as
 * sent, then the request for the assistant message) and, after the first compaction, the
 * forward-use recall of each request.
 */
export class ReplayMeter {
  readonly counter: RequestPartCounter;
  private readonly chain: BillingChain;
  private readonly forward: ForwardUse;
  private summary: PricedCall | undefined;

  constructor(private readonly options: ReplayMeterOptions) {
    this.counter = new RequestPartCounter(options.tokenizer);
    this.chain = new BillingChain(options.outputRatio);
    this.forward = new ForwardUse(options.transcript, options.tools, options.forwardN);
  }

  /**
   * A summary call as sent and the text it returned: a standalone request has no tools; a continuation
   * carries the agent's (tool_choice "none"), so its header matches the agent's requests in the cache.
   */
  summarySent(request: SummaryRequest, text: string): void {
    const output = this.counter.outputTokens({ role: "assistant", content: text });
    this.summary = this.chain.send(this.counter.partsOf(request.messages, request.tools ?? []), output);
  }

  /**
   * A background summary asked for beside the step's request (after it, as its continuation): the step's
   * own summary cost (a step that asks for one made no compaction, so it has none).
   */
  backgroundSummarySent(step: ReplayStep, request: SummaryRequest, text: string): void {
    const output = this.counter.outputTokens({ role: "assistant", content: text });
    const summary = this.chain.send(this.counter.partsOf(request.messages, request.tools ?? []), output);
    step.cost = { ...step.cost, summary };
  }

  /**
   * Records the step's cost (its summary call, and its request when one was sent: `messages` null
   * means none was) and, when asked, its forward-use recall.
   */
  stepDone(step: ReplayStep, messages: readonly ChatMessage[] | null, measureForwardUse: boolean): void {
    const cost: NonNullable<ReplayStep["cost"]> = {};
    if (this.summary) cost.summary = this.summary;
    this.summary = undefined;
    if (messages !== null) {
      const answer = this.options.transcript.messages[step.index] as ChatMessage;
      cost.main = this.chain.send(
        this.counter.partsOf(messages, this.options.tools),
        this.counter.outputTokens(answer),
        false,
      );
      if (measureForwardUse) step.forwardUse = this.forward.measure(step.index, messages);
    }
    step.cost = cost;
  }
}
