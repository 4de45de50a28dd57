import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { createTraining, basePolicy, evaluateSplit, type Policy } from "@evotrainer/gym";
import { runConfigSchema, taskScores, type Recipe } from "@evotrainer/core";
const cfgOf = (d: string) => runConfigSchema.parse(parse(readFileSync(`examples/gym-${d}.yaml`, "utf8")));
function train(domain: any, recipe: Recipe, from: Policy, seed: number, steps: number) {
  const p = { ...from, params: Float64Array.from(from.params) };
  const tr = createTraining({ domain, recipe, seed, tasksPerStep: 16, miniBatches: 4, trainPoolSize: 4096 }, p);
  for (let s = 1; s <= steps; s++) tr.runStep(s);
  return tr.policy;
}
const sd = (xs: number[]) => { const m = xs.reduce((a,b)=>a+b,0)/xs.length; return Math.sqrt(xs.reduce((a,b)=>a+(b-m)**2,0)/(xs.length-1)); };
for (const domain of ["math","code","swe"] as const) {
  const cfg = cfgOf(domain);
  const spec = cfg.evaluation.promotion;
  const score = (p: Policy) => { const e = evaluateSplit(p, "promotion", spec as any, 7, 1); return e.result; };
  const t0 = Date.now();
  const parent = train(domain, cfg.recipe, basePolicy(domain), 11, 30);
  const ps = (score(parent) as any);
  const nulls: number[] = [];
  for (let s = 0; s < 12; s++) { const c = train(domain, cfg.recipe, parent, 1000 + s, 30); nulls.push((score(c) as any).score); }
  console.log(domain, "parent", ps.score, "null mean", nulls.reduce((a,b)=>a+b,0)/nulls.length, "sd", sd(nulls).toFixed(4), Date.now()-t0, "ms", Object.keys(ps));
}
