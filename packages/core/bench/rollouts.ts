// Synthetic rollouts of a given text size per domain, as the catalog bench labels them.
import type { Rollout } from "@evotrainer/contract";
import { seededRandom } from "../src/index.ts";

export const rand = seededRandom(20240601);
const WORDS = ["the", "total", "is", "so", "she", "has", "eggs", "each", "day", "and", "sells", "remaining", "for", "dollars", "then", "we", "multiply", "by", "add", "cost"];

function prose(bytes: number): string {
  let s = "";
  while (s.length < bytes) {
    const a = Math.floor(rand() * 100);
    const b = Math.floor(rand() * 100);
    s += `${Array.from({ length: 8 }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ")} ${a} + ${b} = <<${a}+${b}=${a + b}>>${a + b}.\n`;
  }
  return s.slice(0, bytes);
}

function base(i: number, response: string, extra: Partial<Rollout> = {}): Rollout {
  return {
    uid: `r${i}`, split: "train", step: 1, taskId: `t${i >> 3}`, groupId: `t${i >> 3}`, sample: i & 7, prompt: "Solve it.",
    response, reward: rand() < 0.5 ? 1 : 0, rewardComponents: {}, responseTokens: Math.ceil(response.length / 4), turns: 1, truncated: false, ...extra,
  };
}

export function mathRollouts(n: number, bytes: number): Rollout[] {
  return Array.from({ length: n }, (_, i) => base(i, `${prose(bytes - 8)}\nA: ${i % 50}`, { groundTruth: String(i % 40) }));
}
export function codeRollouts(n: number, bytes: number): Rollout[] {
  return Array.from({ length: n }, (_, i) => {
    const body = prose(bytes - 80).split("\n").map((l) => `    # ${l}`).join("\n");
    const status = ["Wrong Answer", "Time Limit Exceeded", "Runtime Error", undefined][i % 4];
    return base(i, `\`\`\`python\nimport sys\ndef main():\n${body}\n    print(int(sys.stdin.readline()) * 2)\n\`\`\``, {
      testResults: { passed: status ? 0 : 3, total: 3, ...(status ? { status } : {}) },
    });
  });
}
export function sweRollouts(n: number, bytes: number): Rollout[] {
  return Array.from({ length: n }, (_, i) => {
    const turns: NonNullable<Rollout["trajectory"]> = [{ role: "user", content: "Fix the bug." }];
    let size = 0;
    for (let k = 0; size < bytes; k++) {
      const content = prose(400);
      size += content.length + 60;
      turns.push({ role: "assistant", content, toolCalls: [{ name: k % 3 === 0 ? "str_replace_editor" : "bash", arguments: { cmd: k % 3 === 1 ? "python -m pytest -q" : `cat src/mod${k}.py` } }] });
      turns.push({ role: "tool", content: prose(200), toolName: "bash", isError: k % 7 === 6 });
    }
    const patch = "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x\n+y\n";
    return { ...base(i, "", {}), response: undefined, trajectory: turns, turns: turns.length, extra: { patch } };
  });
}

