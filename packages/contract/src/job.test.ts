import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContractFileError } from "./contract-error.ts";
import { jobSchema, readJob, writeJob } from "./job.ts";
import { validJob } from "./test-fixtures.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "evo-contract-job-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readJobError(file: string): Promise<ContractFileError> {
  const error = await readJob(file).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ContractFileError);
  return error as ContractFileError;
}

describe("job.json", () => {
  it("round-trips: what is written is read back, defaults filled in", async () => {
    const file = join(dir, "job.json");
    const input = validJob(dir);
    const { evalSplits: _omitted, ...withoutDefaults } = input;
    const written = await writeJob(file, withoutDefaults);
    expect(written.evalSplits).toEqual(["promotion"]);
    expect(await readJob(file)).toEqual(written);
    expect(written).toEqual(jobSchema.parse(input));
  });

  it("names the file and the field, and says what to do, for an invalid value", async () => {
    const file = join(dir, "job.json");
    const job = validJob(dir) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...job, budget: { maxSeconds: 10, maxSteps: "40", gpuCount: 0 } }));
    const error = await readJobError(file);
    expect(error.file).toBe(file);
    expect(error.issues).toEqual([{ path: "budget.maxSteps", message: expect.stringContaining("expected number") }]);
    expect(error.message).toContain(file);
    expect(error.message).toContain("budget.maxSteps");
  });

  it("reports every problem at once: missing fields, unknown keys, bad enum values, wrong version", async () => {
    const file = join(dir, "job.json");
    const { seed: _seed, ...job } = validJob(dir);
    await writeFile(
      file,
      JSON.stringify({
        ...job,
        contract: "evo.job/v2",
        kind: "finetune",
        evaluation: { ...job.evaluation, promotion: { ...job.evaluation.promotion, taskcount: 3 } },
      }),
    );
    const error = await readJobError(file);
    const byPath = Object.fromEntries(error.issues.map((issue) => [issue.path, issue.message]));
    expect(byPath["seed"]).toMatch(/^missing: add this field/);
    expect(byPath["contract"]).toContain("evo.job/v1");
    expect(byPath["kind"]).toContain('"train"|"eval"');
    expect(byPath["evaluation.promotion.taskcount"]).toMatch(/unknown field: remove it or fix its spelling/);
    expect(error.issues).toHaveLength(4);
  });

  it("requires maxSteps for a train job but not for an eval job", async () => {
    const file = join(dir, "job.json");
    const job = validJob(dir);
    await writeFile(file, JSON.stringify({ ...job, budget: { maxSeconds: 60, gpuCount: 1 } }));
    expect((await readJobError(file)).issues).toEqual([
      { path: "budget.maxSteps", message: expect.stringContaining("a train job needs budget.maxSteps") },
    ]);
    await writeFile(file, JSON.stringify({ ...job, kind: "eval", budget: { maxSeconds: 60, gpuCount: 1 } }));
    expect((await readJob(file)).kind).toBe("eval");
  });

  it("rejects a split listed twice in evalSplits", () => {
    const result = jobSchema.safeParse({ ...validJob(), evalSplits: ["promotion", "promotion"] });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["evalSplits"]);
  });

  it("keeps the recipe and adapter options opaque", async () => {
    const file = join(dir, "job.json");
    const recipe = { algo: { anything: [1, { nested: true }] }, passthrough: { "trainer.x": "y" } };
    expect((await writeJob(file, { ...validJob(dir), recipe })).recipe).toEqual(recipe);
  });

  it("explains a syntax error and a missing file, naming the file", async () => {
    const file = join(dir, "job.json");
    await writeFile(file, '{"contract": "evo.job/v1",');
    const syntax = await readJobError(file);
    expect(syntax.message).toMatch(new RegExp(`^${file}: not valid JSON`));
    const missing = await readJobError(join(dir, "nope.json"));
    expect(missing.message).toContain("nope.json: not found");
  });

  it("refuses to write an invalid job and leaves no file behind", async () => {
    const file = join(dir, "job.json");
    const error = await writeJob(file, { ...validJob(dir), seed: -1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractFileError);
    expect((error as ContractFileError).issues[0]?.path).toBe("seed");
    await expect(readFile(file)).rejects.toMatchObject({ code: "ENOENT" });
  });
});
