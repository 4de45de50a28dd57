import { answersEqual, finalAnswer } from "@evotrainer/core";
import { renderGuess, renderRamble, renderSolution, workedSteps } from "../render/math-response.ts";
import type { MathTask } from "../tasks/math.ts";
import { limitResponse, type DomainModel } from "./episode.ts";

/** Math: the answer is read from the (possibly cut) text, as a real verifier would. */
export const mathModel: DomainModel<MathTask> = {
  behaviours: ["careful_solve", "short_guess", "ramble_repeat", "skip_format"],
  baseProbs: [0.4, 0.2, 0.25, 0.15],
  baseSkill: 0.35,
  components: ["correctness", "format"],
  outcomeBias(_task, behaviour) {
    if (behaviour === "careful_solve") return 0;
    // Looping reasoning still gets somewhere, less reliably.
    if (behaviour === "ramble_repeat") return -0.5;
    return undefined;
  },
  play(task, behaviour, correct, env, rng) {
    const slipAt = correct ? undefined : rng.int(0, task.steps.length - 1);
    let text: string;
    switch (behaviour) {
      case "careful_solve":
        text = renderSolution(task, workedSteps(task, slipAt, rng), "boxed");
        break;
      case "ramble_repeat": {
        const lines = workedSteps(task, slipAt, rng);
        text = renderRamble(task, lines, Math.max(20, Math.round(lines.length * (4 + 4 * rng.next()))));
        break;
      }
      case "skip_format":
        text = renderSolution(task, workedSteps(task, undefined, rng), "none");
        break;
      default: {
        const lucky = rng.chance(0.4 * (1 - task.difficulty) ** 2);
        text = renderGuess(task, lucky ? task.answer : Math.max(0, task.answer + rng.pick([-7, -2, -1, 1, 3, 12])));
      }
    }
    const limited = limitResponse(text, env.maxResponseTokens);
    const answer = finalAnswer(limited.response ?? "");
    return {
      ...limited,
      turns: 1,
      components: {
        correctness: answersEqual(answer, String(task.answer)) ? 1 : 0,
        format: answer === "" ? 0 : 1,
      },
    };
  },
};
