import { describe, expect, it } from "vitest";
import { patchEffects } from "./patch-effects.ts";
import { shellEffects } from "./shell-effects.ts";
import { splitHeredocs, tokenize } from "./shell-words.ts";

describe("shellEffects: what a command line does to files", () => {
  it.each([
    ["cat > reproduce.py << 'EOF'\nimport os\nprint(1 > 0)\nEOF", [["reproduce.py", "written"]]],
    ["cd /testbed && cat <<EOF > ./notes.md\n# notes\nEOF", [["notes.md", "written"]]],
    ['echo "import os" > src/project/file.py && tree', [["src/project/file.py", "written"]]],
    ["echo x >> log.txt 2>&1", [["log.txt", "appended"]]],
    ["sed -i 's/a/b/' setup.cfg", [["setup.cfg", "edited"]]],
    [
      "sed -i.bak -e 's/a/b/' -e 's/c/d/' a.py b.py",
      [
        ["a.py", "edited"],
        ["b.py", "edited"],
      ],
    ],
    ["cp astroid/modutils.py astroid/modutils.py.bak", [["astroid/modutils.py.bak", "written"]]],
    [
      "mv old.py new.py",
      [
        ["old.py", "moved"],
        ["new.py", "written"],
      ],
    ],
    ["rm -f reproduce.py", [["reproduce.py", "deleted"]]],
    ["git checkout -- src/a.py", [["src/a.py", "reverted"]]],
    ["ls -la | tee listing.txt", [["listing.txt", "written"]]],
    [
      "python3 -c \"\nwith open('pydicom/dataelem.py', 'w') as f:\n    f.write(x)\n\"",
      [["pydicom/dataelem.py", "written"]],
    ],
    [
      "python - <<'PY'\nfrom pathlib import Path\nPath('out/data.json').write_text('{}')\nPY",
      [["out/data.json", "written"]],
    ],
    ["bash -c 'echo hi > /tmp/x.txt'", [["/tmp/x.txt", "written"]]],
    ["grep -rn foo src 2>/dev/null", []],
    ["python reproduce.py > /dev/null 2>&1", []],
  ])("%j", (command, expected) => {
    expect(shellEffects(command).changes.map((change) => [change.path, change.action])).toEqual(expected);
  });

  it("reads by cat, head, sed -n and nl, with line spans", () => {
    const effects = shellEffects(
      "cd /testbed && sed -n '300,330p' astroid/modutils.py && head -n 20 setup.py; nl -ba src/x.py | grep def; cat a.txt b.txt",
    );
    expect(effects.reads).toEqual([
      { path: "astroid/modutils.py", lines: "300-330" },
      { path: "setup.py", lines: "1-20" },
      { path: "src/x.py" },
      { path: "a.txt" },
      { path: "b.txt" },
    ]);
    expect(effects.changes).toEqual([]);
    expect(effects.changesSomething).toBe(false);
  });

  it("a heredoc body is data: its lines are neither commands nor reads", () => {
    const effects = shellEffects("cat > t.py <<'EOF'\ncat secrets.txt\nrm -rf /\nEOF\npython t.py");
    expect(effects.reads).toEqual([]);
    expect(effects.changes).toEqual([{ path: "t.py", action: "written" }]);
    expect(effects.changesSomething).toBe(true);
  });

  it("patches applied through the shell", () => {
    const effects = shellEffects(
      "git apply <<'EOF'\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x\n+y\n--- /dev/null\n+++ b/src/new.py\n@@ -0,0 +1 @@\n+z\nEOF",
    );
    expect(effects.changes).toEqual([
      { path: "src/a.py", action: "edited" },
      { path: "src/new.py", action: "created" },
    ]);
  });
});

describe("shell words", () => {
  it("keeps operators apart from words and quotes", () => {
    expect(tokenize(`echo "a > b" 2>&1 >out.txt`)).toEqual([
      { word: "echo" },
      { word: "a > b" },
      { operator: "2>&" },
      { word: "1" },
      { operator: ">" },
      { word: "out.txt" },
    ]);
  });

  it("cuts heredoc bodies, including <<- with tabs, and leaves here-strings", () => {
    const split = splitHeredocs("cat <<-X > a\n\tline\n\tX\ngrep y <<< 'z'");
    expect(split.command).toBe("cat <<-X > a\ngrep y <<< 'z'");
    expect(split.bodies).toEqual(["\tline"]);
  });
});

describe("patchEffects", () => {
  it("reads the apply_patch envelope", () => {
    expect(
      patchEffects(
        "*** Begin Patch\n*** Update File: src/app.ts\n@@\n-a\n+b\n*** Add File: src/new.ts\n+x\n*** Delete File: old.ts\n*** Update File: src/m.ts\n*** Move to: src/n.ts\n*** End Patch",
      ),
    ).toEqual([
      { path: "src/app.ts", action: "edited" },
      { path: "src/new.ts", action: "created" },
      { path: "old.ts", action: "deleted" },
      { path: "src/m.ts", action: "edited" },
      { path: "src/n.ts", action: "written" },
    ]);
  });
});
