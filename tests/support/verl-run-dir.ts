import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { verlResponseKey } from "@evotrainer/adapters";

const write = (file: string, text: string) => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
};

// Python's json.dumps(entry, ensure_ascii=False), one object per line, as verl's _dump_generations writes.
const pyDumps = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(pyDumps).join(", ")}]`
    : typeof value === "object" && value !== null
      ? `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pyDumps(v)}`).join(", ")}}`
      : JSON.stringify(value);
const pyJsonl = (rows: readonly object[]) => `${rows.map(pyDumps).join("\n")}\n`;

export const VERL_PROMPT =
  "<|im_start|>user\nJanet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. How much in dollars does she make every day at the farmers' market? Let's think step by step and output the final answer after \"####\".<|im_end|>\n<|im_start|>assistant\n";
export const RIGHT = "Janet sells 16 - 3 - 4 = 9 duck eggs a day.\nShe makes 9 * 2 = $18 every day at the farmer’s market.\n#### 18";
export const WRONG = "Janet has 16 - 3 = 13 eggs left.\nShe makes 13 * 2 = $26 every day.\n#### 26";
export const NO_ANSWER = "Janet sells the eggs that are left over and earns two dollars for each of them every day.";

const pred = (output: string) => (output === RIGHT ? "18" : output === WRONG ? "26" : "");

/**
 * A verl run directory in verl's own formats, as EvoTrainer's verl job lays it out (the
 * `rollouts/`, `validation/`, `metrics.jsonl` and `reward_components.jsonl` a team's run has):
 * - v1 training dumps for steps 1–3, four samples of one prompt each (uid = {sample}_{rollout}_{output},
 *   score only); step 1 has a line cut short (line 5) and step 2 a NaN score (line 5), as Python writes it;
 * - a validation dump at step 3 with reward extras (acc, pred);
 * - the file logger's `{"step": N, "data": {…}}` lines, one with a NaN;
 * - the reward wrapper's side file: correctness and format of every scored response.
 * 12 good training rows, 2 validation rows, 2 bad lines.
 */
export function writeVerlRunDir(dir: string): void {
  const side: object[] = [];
  for (const step of [1, 2, 3]) {
    const outputs = [RIGHT, WRONG, NO_ANSWER, RIGHT];
    const rows: object[] = outputs.map((output, rollout) => ({ input: VERL_PROMPT, output, gts: "18", score: output === RIGHT ? 1 : 0, step, uid: `0_${rollout}_0` }));
    let text = pyJsonl(rows);
    if (step === 1) text += `{"input": "p", "output": "cut sho\n`;
    if (step === 2) text += `{"input": "p", "output": "o", "gts": "1", "score": NaN, "step": 2, "uid": "1_0_0"}\n`;
    write(join(dir, "rollouts", `${step}.jsonl`), text);
    for (const output of outputs) {
      side.push({
        key: verlResponseKey(output), gts: "18", data_source: "openai/gsm8k", score: output === RIGHT ? 1 : 0,
        components: { correctness: output === RIGHT ? 1 : 0, format: output === NO_ANSWER ? 0 : 1 }, labels: { pred: pred(output) },
      });
    }
  }
  write(join(dir, "validation", "3.jsonl"), pyJsonl([
    { input: VERL_PROMPT, output: RIGHT, gts: "18", score: 1, step: 3, acc: true, pred: "18" },
    { input: VERL_PROMPT, output: WRONG, gts: "18", score: 0, step: 3, acc: false, pred: "26" },
  ]));
  write(join(dir, "metrics.jsonl"), [1, 2, 3].map((step) =>
    `{"step": ${step}, "data": {"actor/entropy": ${1 - step / 10}, "actor/kl_loss": ${step / 1000}, "critic/score/mean": ${step / 4}, "actor/grad_norm": ${step === 2 ? "NaN" : 0.5}}}`).join("\n") + "\n");
  write(join(dir, "reward_components.jsonl"), pyJsonl(side));
}
