import { describe, expect, it } from "vitest";
import { printable } from "./printable.ts";

describe("printable", () => {
  it("shows control characters as escapes and leaves other text as it is", () => {
    expect(printable("\u001b[31mred\u001b[0m")).toBe("\\x1b[31mred\\x1b[0m");
    expect(printable("a\rb\u0007\u009b\u007f")).toBe("a\\x0db\\x07\\x9b\\x7f");
    expect(printable("Équipe 😀 — ok")).toBe("Équipe 😀 — ok");
  });
});
