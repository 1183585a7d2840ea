/**
 * The client's working folder as a text states it: Codex `<cwd>…</cwd>`, opencode `Working
 * directory: …`, Claude Code `Primary working directory: …`, pi `Current working directory: …`,
 * qwen-code and Gemini CLI `I'm currently working in the directory: …`.
 */
export function workingFolderIn(text: string): string | undefined {
  const found =
    /<cwd>([^<\n]+)<\/cwd>/.exec(text) ??
    /[Ww]orking directory: (\S+)/.exec(text) ??
    /working in the directory:? (\S+)/.exec(text);
  return found?.[1]?.trim();
}
