import type { NewMessage } from "@longrun/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fingerprint } from "./fingerprint.ts";
import { matchHistory } from "./match-history.ts";

const user = (text: string): NewMessage => ({ role: "user", content: text });
const call = (id: string, args = '{"path":"a.txt","n":1}'): NewMessage => ({
  role: "assistant",
  content: null,
  toolCalls: [{ id, type: "function", function: { name: "read", arguments: args } }],
});
const result = (id: string, text = "ok"): NewMessage => ({ role: "tool", content: text, toolCallId: id });
const answer = (text: string): NewMessage => ({ role: "assistant", content: text });

describe("matchHistory", () => {
  const log = [user("task"), call("c1"), result("c1"), answer("done")];

  it("appends only what is new", () => {
    expect(matchHistory(log, [...log, user("more")])).toEqual({
      kind: "extend",
      append: [user("more")],
      dropped: 0,
    });
    expect(matchHistory(log, log)).toEqual({ kind: "extend", append: [], dropped: 0 });
  });

  it("answers a retried request from the log", () => {
    const facts = [user("task"), call("c1")];
    expect(matchHistory(facts, [user("task")])).toEqual({ kind: "replay", answer: call("c1") });
  });

  it("reports an edited or dropped history instead of merging it", () => {
    expect(matchHistory(log, [user("task"), call("c1"), result("c1", "edited")])).toMatchObject({
      kind: "diverged",
      at: 2,
    });
    expect(matchHistory(log, [user("task"), call("c1")])).toMatchObject({ kind: "diverged", at: 2 });
    expect(matchHistory(log, [user("other task")])).toMatchObject({ kind: "diverged", at: 0 });
  });

  it("matches tool arguments by value and text without surrounding whitespace", () => {
    const echoed = [user("task "), call("c1", '{ "n": 1, "path": "a.txt" }'), result("c1"), answer("done\n")];
    expect(matchHistory(log, echoed)).toEqual({ kind: "extend", append: [], dropped: 0 });
  });

  it("takes a call echoed with defaulted false or null flags for the same call, but not other changes", () => {
    const echoed = [
      user("task"),
      call("c1", '{"path":"a.txt","n":1,"replace_all":false,"offset":null}'),
      result("c1"),
    ];
    expect(matchHistory(log.slice(0, 3), echoed)).toEqual({ kind: "extend", append: [], dropped: 0 });
    const changed = [user("task"), call("c1", '{"path":"a.txt","n":1,"replace_all":true}'), result("c1")];
    expect(matchHistory(log.slice(0, 3), changed)).toMatchObject({ kind: "diverged", at: 1 });
  });

  it("drops new items that repeat a call or result the log already has", () => {
    const match = matchHistory([], [call("c1"), result("c1"), user("Continue")], log);
    expect(match).toEqual({ kind: "extend", append: [user("Continue")], dropped: 2 });
  });

  it("holds for random histories: extend, replay and divergence at the edited item", () => {
    const item = fc.oneof(
      fc.string().map(user),
      fc.string().map(answer),
      fc.tuple(fc.uuid(), fc.string()).map(([id, text]) => result(id, text)),
      fc.uuid().map((id) => call(id)),
    );
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 30 }),
        fc.array(item, { maxLength: 5 }),
        fc.nat(),
        (facts, added, pick) => {
          const extended = matchHistory(facts, [...facts, ...added], []);
          expect(extended).toEqual({ kind: "extend", append: added, dropped: 0 });
          if (facts.length === 0) return;
          const index = pick % facts.length;
          const edited = [...facts];
          edited[index] = user(`edited ${fingerprint(facts[index]!)}`);
          const match = matchHistory(facts, edited);
          expect(match).toMatchObject({ kind: "diverged", at: index });
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
