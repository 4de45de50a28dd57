import { describe, expect, it } from "vitest";
import { hydraOverride, hydraValue } from "./hydra-override.ts";

describe("hydraValue", () => {
  it("writes scalars, lists and dicts in Hydra's override grammar", () => {
    expect(hydraValue(1e-6)).toBe("0.000001");
    expect(hydraValue(1e-7)).toBe("1e-7");
    expect(hydraValue(true)).toBe("true");
    expect(hydraValue(null)).toBe("null");
    expect(hydraValue(["console", "file"])).toBe("[console,file]");
    expect(hydraValue({ a: 1, b: "x" })).toBe("{a:1,b:x}");
    expect(hydraValue("/data/gsm8k/train.parquet")).toBe("/data/gsm8k/train.parquet");
  });

  it("quotes strings Hydra would parse as syntax or as another type", () => {
    expect(hydraValue("a b")).toBe("'a b'");
    expect(hydraValue("s3://bucket/x")).toBe("'s3://bucket/x'");
    expect(hydraValue("it's")).toBe("'it\\'s'");
    expect(hydraValue("true")).toBe("'true'");
    expect(hydraValue("42")).toBe("'42'");
    expect(hydraValue("~/models/x")).toBe("'~/models/x'");
  });

  it("refuses keys that are not config paths, and non-finite numbers", () => {
    expect(hydraOverride("+trainer.extra", 1)).toBe("+trainer.extra=1");
    expect(() => hydraOverride("trainer.logger=[x] a", 1)).toThrow(/not a Hydra override key/);
    expect(() => hydraValue(Number.NaN)).toThrow(RangeError);
  });
});
