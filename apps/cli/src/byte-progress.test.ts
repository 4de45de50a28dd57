import { afterEach, describe, expect, it, vi } from "vitest";
import { byteProgress } from "./byte-progress.ts";

function stderrOf(terminal: boolean, draw: (progress: ReturnType<typeof byteProgress>) => void): string {
  const written: string[] = [];
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0);
  Object.defineProperty(process.stderr, "isTTY", { value: terminal, configurable: true });
  draw(byteProgress());
  return written.join("");
}

describe("byteProgress", () => {
  const wasTerminal = Object.getOwnPropertyDescriptor(process.stderr, "isTTY");
  afterEach(() => {
    vi.restoreAllMocks();
    if (wasTerminal) Object.defineProperty(process.stderr, "isTTY", wasTerminal);
    else delete (process.stderr as { isTTY?: boolean }).isTTY;
  });

  const twoFiles = (progress: ReturnType<typeof byteProgress>) => {
    progress.show("[1/2] a-long-name.json", 500_000, 1_000_000);
    progress.show("[1/2] a-long-name.json", 1_000_000, 1_000_000);
    progress.show("[2/2] b.json", 2_000_000, 2_000_000);
    progress.end();
  };

  it("writes a line per source once it is read when stderr is a log, never a carriage return", () => {
    expect(stderrOf(false, twoFiles)).toBe("[1/2] a-long-name.json: 100% of 1.0 MB\n[2/2] b.json: 100% of 2.0 MB\n");
  });

  it("redraws one line in place on a terminal, clearing what a longer label left, and ends it once", () => {
    expect(stderrOf(true, twoFiles)).toBe(
      "\r[1/2] a-long-name.json: 50% of 1.0 MB\x1b[K\r[1/2] a-long-name.json: 100% of 1.0 MB\x1b[K\r[2/2] b.json: 100% of 2.0 MB\x1b[K\n",
    );
  });

  it("ends nothing when nothing was drawn", () => {
    expect(stderrOf(true, (progress) => progress.end())).toBe("");
  });
});
