import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { openStore } from "@longrun/store";
import { describe, expect, it } from "vitest";
import { createTempStore } from "./database.ts";

describe("createTempStore", () => {
  it("opens a migrated store in a temp dir and removes it on cleanup", async () => {
    const { store, url, dir, cleanup } = await createTempStore();
    expect(dir.startsWith(tmpdir())).toBe(true);
    expect(existsSync(url)).toBe(true);
    const message = await store.messages.append("agent", { role: "user", content: "hello" });

    // The same file can be opened by a second store (as another process would).
    const other = await openStore({ url });
    expect(await other.messages.list("agent")).toEqual([message]);
    await other.close();

    await cleanup();
    await cleanup();
    expect(existsSync(dir)).toBe(false);
  });

  it("passes a token counter through", async () => {
    const { store, cleanup } = await createTempStore({ countTokens: () => 7 });
    try {
      expect((await store.messages.append("a", { role: "user", content: "x" })).tokenCount).toBe(7);
    } finally {
      await cleanup();
    }
  });
});
