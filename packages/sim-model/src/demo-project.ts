/**
 * A small project the default scripted agent can explore in a new thread's empty workspace, so a
 * newcomer's first thread has real files to read and an 8k window fills up (and compacts).
 */
export function demoProjectFiles(): Record<string, string> {
  const lines = (count: number, line: (index: number) => string) =>
    Array.from({ length: count }, (_, index) => line(index)).join("\n");
  return {
    "README.md": [
      "# warehouse",
      "",
      "A demo inventory service the sim model explores. It tracks stock levels, a ledger of every",
      "movement, nightly reconciliation and a small HTTP API. Start with src/, then docs/.",
    ].join("\n"),
    "package.json": JSON.stringify(
      { name: "warehouse", version: "0.3.0", type: "module", scripts: { test: "node --test" } },
      null,
      2,
    ),
    "src/stock.ts": lines(
      90,
      (index) =>
        `export function level${index}(count: number): number { return Math.max(0, count - ${index}); } // TODO: reorder point ${index}`,
    ),
    "src/ledger.ts": lines(
      90,
      (index) =>
        `export const entry${index} = { sku: "SKU-${1000 + index}", delta: ${(index % 7) - 3}, note: "ledger movement ${index}" };`,
    ),
    "src/reconcile.ts": lines(
      80,
      (index) =>
        `// reconcile pass ${index}: compare ledger sum with stock level and flag drift over ${index % 5} units`,
    ),
    "src/api.ts": lines(
      70,
      (index) =>
        `app.get("/v1/items/${index}", (request) => lookup(${index}, request)); // FIXME: auth check ${index}`,
    ),
    "src/config.ts": lines(
      40,
      (index) => `export const setting${index} = process.env.WAREHOUSE_SETTING_${index} ?? "${index * 11}";`,
    ),
    "docs/design.md": lines(
      60,
      (index) =>
        `Design note ${index}: every stock movement is a ledger entry; levels are derived, never edited in place.`,
    ),
    "docs/operations.md": lines(
      50,
      (index) =>
        `Runbook ${index}: check queue depth, ledger lag and reconcile drift, then restart the worker if needed.`,
    ),
    "docs/api.md": lines(
      50,
      (index) =>
        `GET /v1/items/${index} returns the item, its level and its last ${index % 9} ledger entries.`,
    ),
    "test/stock.test.ts": lines(
      60,
      (index) => `test("level ${index}", () => assert.equal(level${index}(${index + 5}), 5));`,
    ),
  };
}
