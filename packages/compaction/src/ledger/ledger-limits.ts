/** How many entries of each kind a ledger keeps (rendering keeps fewer when the budget is tight). */
export const LEDGER_LIMITS = {
  changedFiles: 300,
  readFiles: 30,
  commands: 30,
  errors: 5,
  subAgents: 20,
  userNotes: 10,
  planChars: 2_000,
  noteChars: 200,
  reportChars: 160,
} as const;
