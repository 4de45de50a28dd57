import { describe, expect, it } from "vitest";
import { applyJsonPatch } from "./json-patch.ts";

describe("applyJsonPatch (RFC 6902)", () => {
  const doc = { a: { b: 1, "x/y": 2, "m~n": 3 }, list: [1, 2, 3] };

  it("applies add, remove, replace, move, copy and test, leaving the input untouched", () => {
    const r = applyJsonPatch(doc, [
      { op: "test", path: "/a/b", value: 1 },
      { op: "add", path: "/list/1", value: 9 },
      { op: "add", path: "/list/-", value: 4 },
      { op: "remove", path: "/list/0" },
      { op: "replace", path: "/a/x~1y", value: 20 },
      { op: "move", from: "/a/m~0n", path: "/c" },
      { op: "copy", from: "/a/b", path: "/d" },
    ]);
    expect(r).toEqual({ ok: true, document: { a: { b: 1, "x/y": 20 }, list: [9, 2, 3, 4], c: 3, d: 1 } });
    expect(doc).toEqual({ a: { b: 1, "x/y": 2, "m~n": 3 }, list: [1, 2, 3] });
  });

  it("names the failing operation", () => {
    expect(applyJsonPatch(doc, [{ op: "replace", path: "/a/zz", value: 1 }])).toEqual({
      ok: false,
      opIndex: 0,
      message: "replace /a/zz: path does not exist",
    });
    expect(applyJsonPatch(doc, [{ op: "add", path: "/a/b", value: 2 }, { op: "test", path: "/a/b", value: 1 }])).toMatchObject({
      ok: false,
      opIndex: 1,
      message: "test /a/b: test failed",
    });
    expect(applyJsonPatch(doc, [{ op: "add", path: "/list/7", value: 0 }])).toMatchObject({ ok: false, message: expect.stringContaining("out of bounds") });
    expect(applyJsonPatch(doc, [{ op: "move", from: "/a", path: "/a/b/c" }])).toMatchObject({ ok: false, message: expect.stringContaining("own children") });
  });
});
