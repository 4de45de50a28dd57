import { describe, expect, it } from "vitest";
import { csvLine, csvLineParts, CsvLines, JsonText } from "./csv.ts";

const decode = (csv: CsvLines) => Buffer.concat([...csv.chunks()]).toString("utf8");

describe("CsvLines", () => {
  // First: the buffers the other tests release would be handed out here too.
  it("hands a released batch's memory to the next batch, which holds only its own lines", () => {
    const first = CsvLines.of(["1,\"one\"\n", "2,\"two\"\n"]);
    const view = first.line(1);
    // A view of another's bytes is not its to give away.
    view.release();
    const bytesOf = (csv: CsvLines) => (csv as unknown as { bytes: Buffer }).bytes;
    const memory = bytesOf(first).buffer;
    first.release();
    expect(first.count).toBe(0);
    const next = CsvLines.withCapacity(1024);
    expect(bytesOf(next).buffer).toBe(memory);
    next.push("3,\"three\"\n");
    expect(decode(next)).toBe("3,\"three\"\n");
    expect(bytesOf(CsvLines.withCapacity(1024)).buffer).not.toBe(memory);
  });

  it("holds every line's UTF-8 bytes across growth and chunk boundaries, and each line alone", () => {
    // Seeded so a failure replays: ASCII, two- and three-byte characters, astral pairs, quotes,
    // and lines longer than a whole chunk.
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const pieces = ["a", "Z", " ", "\"", ",", "\n", "é", "…", "数", "😀", "\\"];
    const lines = Array.from({ length: 400 }, (_, i) => {
      const length = i % 50 === 0 ? 300_000 : Math.floor(random() * 3_000);
      const text = Array.from({ length: Math.min(length, 2_000) }, () => pieces[Math.floor(random() * pieces.length)]).join("");
      return csvLine([i, text.repeat(Math.max(1, Math.floor(length / 2_000))), { k: text.slice(0, 20) }]);
    });
    const csv = CsvLines.withCapacity(16);
    for (const line of lines) csv.push(line);
    expect(csv.count).toBe(lines.length);
    expect(decode(csv)).toBe(lines.join(""));
    for (const index of [0, 1, 50, 199, 399]) expect(decode(csv.line(index))).toBe(lines[index]);
    for (const chunk of csv.chunks()) expect(chunk.length).toBeLessThanOrEqual(256 * 1024);
    const prefixes = lines.map((_, i) => `${i * 7_919},"é",`);
    const prefixed = csv.prefixed(prefixes);
    expect(decode(prefixed)).toBe(lines.map((line, i) => prefixes[i] + line).join(""));
    expect(decode(prefixed.line(399))).toBe(prefixes[399]! + lines[399]);
  });

  it("is empty with no lines", () => {
    expect(CsvLines.of([]).count).toBe(0);
    expect([...CsvLines.of([]).chunks()]).toEqual([]);
  });

  it("writes a line given as parts, a JSON text among them, as the same bytes as the line written from values", () => {
    const trajectory = [{ role: "user", content: "say \"hi\", then é 😀" }, { role: "assistant", content: "" }];
    const pieces = ["[", JSON.stringify(trajectory[0]), ",", JSON.stringify(trajectory[1]), "]"];
    const values = ["run", 3, null, true, trajectory, "a \"quoted\", text"];
    const parts = csvLineParts(values.map((value) => (value === trajectory ? new JsonText(pieces) : value)));
    expect(parts.join("")).toBe(csvLine(values));
    const csv = CsvLines.withCapacity(8);
    csv.push(csvLine(["before"]));
    csv.pushParts(parts);
    expect(decode(csv)).toBe(`${csvLine(["before"])}${csvLine(values)}`);
    expect(csv.count).toBe(2);
  });
});
