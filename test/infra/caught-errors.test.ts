import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// Every error production code catches and does not rethrow is either logged with its context or
// carries a comment that says why nothing is logged (issue 36). A catch passes when it:
//   - rethrows, or hands the error on (uses the caught value: a result, a reject, a returned error);
//   - writes a log line (`log.`/`logger.` call, or a `.warn(`/`.error(` of a logger);
//   - or has a comment inside it or on the two lines above it.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The server-side code: the processes and the packages they run (the dashboard and the SDK run in a user's app). */
const SCANNED = [
  "apps/server/src",
  "apps/worker/src",
  "packages/cli/src",
  "packages/compaction/src",
  "packages/openai-compat/src",
  "packages/queue/src",
  "packages/runtime/src",
  "packages/store/src",
];
const LOGS = /\b(log|logger)\.(debug|info|warn|error|child)\(|\.(warn|error)\(\{/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "__fixtures__" ? [] : sourceFiles(path);
    const production =
      entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.includes(".test-");
    return production ? [path] : [];
  });
}

function usesName(node: ts.Node, name: string): boolean {
  let found = false;
  const visit = (child: ts.Node) => {
    if (found) return;
    if (ts.isIdentifier(child) && child.text === name) found = true;
    else ts.forEachChild(child, visit);
  };
  ts.forEachChild(node, visit);
  return found;
}

function throws(node: ts.Node): boolean {
  let found = false;
  const visit = (child: ts.Node) => {
    if (found || ts.isFunctionLike(child)) return;
    if (ts.isThrowStatement(child)) found = true;
    else ts.forEachChild(child, visit);
  };
  ts.forEachChild(node, visit);
  return found;
}

/** The catches of one file that neither handle, log nor explain what they swallow. */
function silentCatches(path: string): string[] {
  const text = readFileSync(path, "utf8");
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const lines = text.split("\n");
  const found: string[] = [];
  const explained = (node: ts.Node) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
    const body = node.getText(source);
    const above = lines.slice(Math.max(0, line - 2), line + 1).join("\n");
    return /\/\/|\/\*/.test(body) || /\/\/|\/\*/.test(above) || LOGS.test(body);
  };
  const report = (node: ts.Node) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push(`${relative(ROOT, path)}:${line + 1}: ${lines[line]?.trim()}`);
  };
  const visit = (node: ts.Node) => {
    if (ts.isCatchClause(node)) {
      const name = node.variableDeclaration?.name;
      const handled =
        throws(node.block) || (name && ts.isIdentifier(name) && usesName(node.block, name.text));
      if (!handled && !explained(node)) report(node);
    } else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === "catch"
    ) {
      const handler = node.arguments[0];
      if (handler && (ts.isArrowFunction(handler) || ts.isFunctionExpression(handler))) {
        const parameter = handler.parameters[0]?.name;
        const handled =
          throws(handler.body) ||
          (parameter !== undefined && ts.isIdentifier(parameter) && usesName(handler.body, parameter.text));
        if (!handled && !explained(node.arguments[0] as ts.Node) && !explained(node)) report(node);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("caught errors", () => {
  it("every production catch rethrows, hands the error on, logs it, or says why it does not", () => {
    const silent = SCANNED.flatMap((dir) => sourceFiles(join(ROOT, dir))).flatMap(silentCatches);
    expect(silent).toEqual([]);
  });
});
