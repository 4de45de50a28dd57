import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TRL_PYTHON, trlUnavailable } from "../support/real-trainers.ts";

const unavailable = trlUnavailable();
if (unavailable) console.error(`\nREAL-TRAINER TESTS NOT RUN: ${unavailable}\n`);
const dir = mkdtempSync(join(tmpdir(), "evo-tiny-build-"));
const build = () => spawnSync(TRL_PYTHON, [resolve("scripts/tiny-model/build.py"), dir, "--size", "smoke"], { encoding: "utf8" });
const rows = (split: string) =>
  readFileSync(join(dir, `${split}.jsonl`), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { task_id: string; prompt: string; answer: string });

/** The value of a task's expression ("Q: 7+12-5=?"), read left to right as the solutions are written. */
function leftToRight(prompt: string): number {
  const [first, ...rest] = prompt.match(/[+-]?\d+/g)!.map(Number);
  return rest.reduce((total, term) => total + term, first!);
}

describe.skipIf(unavailable !== null)("the tiny arithmetic model's build (real torch, transformers and tokenizers, smallest size)", () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes a loadable SFT model and disjoint task splits, and keeps a build whose key matches", () => {
    const first = build();
    expect(first.status, first.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(dir, "build.json"), "utf8")) as { key: string; parameters: number };
    expect(manifest.parameters).toBeGreaterThan(0);
    const prompts = ["train", "promotion", "sealed"].map((split) => new Set(rows(split).map((row) => row.prompt)));
    for (const [i, a] of prompts.entries()) for (const b of prompts.slice(i + 1)) expect([...a].filter((p) => b.has(p))).toEqual([]);
    for (const row of rows("sealed")) expect(leftToRight(row.prompt)).toBe(Number(row.answer));
    const loaded = spawnSync(TRL_PYTHON, ["-c", `from transformers import AutoModelForCausalLM, AutoTokenizer as T; T.from_pretrained("${join(dir, "model")}"); AutoModelForCausalLM.from_pretrained("${join(dir, "model")}")`], { encoding: "utf8" });
    expect(loaded.status, loaded.stderr).toBe(0);

    const again = build();
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain(`kept: ${dir} (build ${manifest.key})`);
  });
});
