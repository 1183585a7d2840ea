import { describe, expect, it } from "vitest";
import { compileGlob, literalPrefix, matchGlob } from "./glob-pattern.ts";

describe("glob matcher", () => {
  it.each([
    ["*.ts", "a.ts", true],
    ["*.ts", "src/a.ts", false],
    ["**/*.ts", "a.ts", true],
    ["**/*.ts", "src/deep/a.ts", true],
    ["src/**", "src/a/b/c", true],
    ["src/**/b.ts", "src/b.ts", true],
    ["src/**/b.ts", "src/x/y/b.ts", true],
    ["src/**/b.ts", "srcx/b.ts", false],
    ["?.md", "a.md", true],
    ["?.md", "ab.md", false],
    ["*.{ts,tsx}", "a.tsx", true],
    ["*.{ts,tsx}", "a.js", false],
    ["{src,test}/**/*.{ts,js}", "test/x/y.js", true],
    ["a{b,{c,d}}e", "ade", true],
    ["[abc].txt", "b.txt", true],
    ["[!abc].txt", "b.txt", false],
    ["file(1).txt", "file(1).txt", true],
    ["a.b", "axb", false],
    ["./src/*.ts", "src/a.ts", true],
  ])("%s vs %s → %s", (pattern, path, expected) => {
    expect(matchGlob(pattern, path)).toBe(expected);
  });

  it("treats an unclosed brace or bracket literally", () => {
    expect(compileGlob("a{b").test("a{b")).toBe(true);
    expect(compileGlob("a[b").test("a[b")).toBe(true);
  });

  it("finds the literal folder to walk from", () => {
    expect(literalPrefix("src/lib/**/*.ts")).toBe("src/lib");
    expect(literalPrefix("**/*.ts")).toBe("");
    expect(literalPrefix("src/*.ts")).toBe("src");
    expect(literalPrefix("*.md")).toBe("");
  });
});
