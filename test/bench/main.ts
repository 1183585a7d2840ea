import { sections } from "./sections.ts";

/** `tsx test/bench/main.ts [section...]`: run the named sections, or all of them. */
async function main(argv: string[]): Promise<number> {
  const names = argv.filter((arg) => !arg.startsWith("-"));
  const unknown = names.filter((name) => !sections.some((section) => section.name === name));
  if (unknown.length > 0) {
    console.error(`unknown bench section(s): ${unknown.join(", ")}`);
    console.error(`available: ${sections.map((section) => section.name).join(", ")}`);
    return 2;
  }
  const chosen = names.length === 0 ? sections : sections.filter((section) => names.includes(section.name));
  for (const section of chosen) {
    console.log(`\n### bench: ${section.name} — ${section.description}`);
    await section.run();
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
