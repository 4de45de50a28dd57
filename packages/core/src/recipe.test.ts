import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.ts";
import { contentHash } from "./content-hash.ts";
import { defaultRecipe, recipeHash, recipeSchema } from "./recipe.ts";
import { sha256Hex } from "./sha256.ts";

describe("sha256Hex", () => {
  it("matches the FIPS 180-4 test vectors", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
    expect(sha256Hex("a".repeat(1000))).toBe("41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
    expect(sha256Hex("é")).toBe(sha256Hex(new Uint8Array([0xc3, 0xa9])));
  });
});

describe("canonical JSON and content hash", () => {
  it("sorts keys at every depth and drops undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[2,{"y":2,"z":1}]},"b":1}');
  });

  it("gives equal hashes to equal recipes written in a different key order", () => {
    const r = defaultRecipe();
    const reordered = JSON.parse(JSON.stringify({ passthrough: r.passthrough, env: r.env, data: r.data, reward: r.reward, algo: r.algo }));
    expect(recipeHash(reordered)).toBe(recipeHash(r));
    expect(recipeHash(r)).toMatch(/^[0-9a-f]{64}$/);
    expect(contentHash({ ...r, algo: { ...r.algo, lr: 2e-6 } })).not.toBe(recipeHash(r));
  });
});

describe("recipeSchema", () => {
  it("accepts the default recipe and rejects unknown keys and bad values with their path", () => {
    expect(recipeSchema.parse(defaultRecipe())).toEqual(defaultRecipe());
    const bad = recipeSchema.safeParse({ ...defaultRecipe(), algo: { ...defaultRecipe().algo, groupSize: 0 } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(["algo", "groupSize"]);
    expect(recipeSchema.safeParse({ ...defaultRecipe(), eval: {} }).success).toBe(false);
    const curriculum = recipeSchema.safeParse({
      ...defaultRecipe(),
      data: { ...defaultRecipe().data, curriculum: { enabled: true, minPassRate: 0.9, maxPassRate: 0.1 } },
    });
    expect(curriculum.error?.issues[0]?.path).toEqual(["data", "curriculum", "minPassRate"]);
  });
});
