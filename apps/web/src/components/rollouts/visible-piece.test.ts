import { describe, expect, it } from "vitest";
import { visiblePiece } from "./visible-piece";

describe("a token's visible text in the heat strip", () => {
  it("keeps printable pieces as they are, spaces inside them included", () => {
    expect(visiblePiece(" 84.")).toBe(" 84.");
    expect(visiblePiece("�")).toBe("�");
  });

  it("prints control bytes, newlines, tabs and blank pieces as pictures, so no token looks empty", () => {
    // Pieces a tiny random-weight model sampled in the real TRL e2e run: BEL among them.
    expect(visiblePiece("\u0007")).toBe("␇");
    expect(visiblePiece("\u0000")).toBe("␀");
    expect(visiblePiece("\u007f")).toBe("␡");
    expect(visiblePiece("\u0085")).toBe("\\u0085");
    expect(visiblePiece("\n")).toBe("↵");
    expect(visiblePiece(".\n\n")).toBe(".↵↵");
    expect(visiblePiece("\t")).toBe("⇥");
    expect(visiblePiece("  ")).toBe("␣␣");
    expect(visiblePiece(" \n")).toBe("␣↵");
    expect(visiblePiece("")).toBe("∅");
  });
});
