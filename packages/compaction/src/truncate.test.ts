import { describe, expect, it } from "vitest";
import { truncateArgumentsJson } from "./truncate.ts";

describe("truncateArgumentsJson", () => {
  it("replaces the big string fields with a marker and keeps valid JSON", () => {
    const args = JSON.stringify({ file_path: "src/a.ts", content: "z".repeat(48_210) });
    const cut = truncateArgumentsJson(args, 2_000);
    expect(JSON.parse(cut)).toEqual({
      file_path: "src/a.ts",
      content: "[truncated: 48,210 chars of content]",
    });
  });

  it("handles nested fields and unparseable arguments", () => {
    const nested = JSON.stringify({
      edits: [{ old_string: "a".repeat(3_000), new_string: "b".repeat(3_000) }],
    });
    const cut = JSON.parse(truncateArgumentsJson(nested, 2_000)) as { edits: { old_string: string }[] };
    expect(cut.edits[0]?.old_string).toMatch(/^\[truncated: 3,000 chars of old_string\]$/);
    const broken = `{"content": "${"q".repeat(3_000)}`;
    expect(JSON.parse(truncateArgumentsJson(broken, 2_000))).toEqual({
      truncated: `[truncated: ${broken.length.toLocaleString("en-US")} chars of unparseable arguments]`,
    });
    expect(truncateArgumentsJson('{"a":1}', 2_000)).toBe('{"a":1}');
  });

  it("keeps the first line of a shell command, where a heredoc names the file it writes", () => {
    const script = `cd /testbed && cat > /tmp/edit_related.py << 'EOF'\n${"print('x')\n".repeat(300)}EOF`;
    const cut = JSON.parse(truncateArgumentsJson(JSON.stringify({ command: script }), 2_000)) as {
      command: string;
    };
    expect(cut.command).toBe(
      `[truncated: ${script.length.toLocaleString("en-US")} chars of command, beginning: cd /testbed && cat > /tmp/edit_related.py << 'EOF']`,
    );
    // A one-line command longer than the beginning kept is clipped.
    const long = JSON.parse(
      truncateArgumentsJson(JSON.stringify({ cmd: `echo ${"y".repeat(3_000)}` }), 2_000),
    ) as {
      cmd: string;
    };
    expect(long.cmd).toMatch(/^\[truncated: 3,005 chars of cmd, beginning: echo y{154}…\]$/);
  });
});
