import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readVerlRun } from "./verl-run-dir.ts";

const dir = mkdtempSync(join(tmpdir(), "evo-verl-run-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (output: string, uid: string) => JSON.stringify({ input: "p", output, gts: "1", score: 1, step: 7, uid });

describe("readVerlRun", () => {
  it("keeps each row's line in the dump, reports bad lines with their text, and leaves a line still being written", async () => {
    const rollouts = join(dir, "rollouts");
    mkdirSync(rollouts);
    const dump = join(rollouts, "7.jsonl");
    writeFileSync(dump, [line("a", "0_0_0"), "", "[1, 2]", line("b", "0_1_0"), '{"input": "p", "out'].join("\n"));

    const [step] = (await readVerlRun({ rolloutDataDir: rollouts })).rollouts;
    expect(step).toMatchObject({ split: "train", step: 7, file: dump, lineNumbers: [1, 4], unreadable: [{ lineNumber: 3, reason: "not a JSON object", raw: "[1,2]" }] });
    expect(step!.rollouts.map((r) => r.response)).toEqual(["a", "b"]);

    appendFileSync(dump, 'put": "c", "gts": "1", "score": 0, "step": 7, "uid": "0_2_0"}\n');
    const [again] = (await readVerlRun({ rolloutDataDir: rollouts })).rollouts;
    expect(again!.lineNumbers).toEqual([1, 4, 5]);
    expect(again!.rollouts.slice(0, 2)).toEqual(step!.rollouts);
  });
});
