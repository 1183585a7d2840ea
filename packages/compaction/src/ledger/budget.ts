import type { ModelProfile } from "@longrun/protocol";
import { thresholds } from "../thresholds.ts";

/** Share of the request limit a ledger may take, and its floor and ceiling in tokens. */
export const LEDGER_BUDGET = { share: 0.05, minTokens: 160, maxTokens: 4_000 } as const;

/** The ledger's token budget: 5 % of the request limit, within 160–4,000 tokens. */
export function ledgerBudgetTokens(profile: Partial<ModelProfile>): number {
  const { limitTokens } = thresholds(profile);
  const share = Math.floor(limitTokens * LEDGER_BUDGET.share);
  return Math.max(LEDGER_BUDGET.minTokens, Math.min(LEDGER_BUDGET.maxTokens, share));
}
