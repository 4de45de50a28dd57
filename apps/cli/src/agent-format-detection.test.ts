import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { detectAgentFormat } from "./agent-format-detection.ts";

const dir = mkdtempSync(join(tmpdir(), "evo-detect-"));
function layout(name: string, files: Record<string, string>): string {
  const root = join(dir, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("the agent format of a path named without one", () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("tells each framework's published directory by the files only it writes", () => {
    expect(detectAgentFormat(layout("oh", { "outputs/swe-bench/CodeActAgent/gpt-5_maxiter_50_N_v1/output.jsonl": "{}\n", "outputs/swe-bench/CodeActAgent/gpt-5_maxiter_50_N_v1/report.json": "{}" }))).toBe("openhands");
    // run_infer.py's iterative mode, stopped before it wrote output.jsonl: one file per attempt.
    const iterative = layout("oh-iterative", { "gpt-5_maxiter_50_N_v1/output.critic_attempt_1.jsonl": "{}\n", "gpt-5_maxiter_50_N_v1/output.critic_attempt_2.jsonl": "{}\n" });
    expect(detectAgentFormat(iterative)).toBe("openhands");
    expect(detectAgentFormat(join(iterative, "gpt-5_maxiter_50_N_v1/output.critic_attempt_2.jsonl"))).toBe("openhands");
    expect(detectAgentFormat(layout("sa", { "trajectories/me/run/a__b-1/a__b-1.traj": "{}", "trajectories/me/run/a__b-1/a__b-1.pred": "{}" }))).toBe("swe-agent");
    expect(detectAgentFormat(layout("msa", { "trajs/a__b-1/a__b-1.traj.json": "{}", "logs/a__b-1/report.json": "{}" }))).toBe("mini-swe-agent");
  });

  it("tells a JSONL file by its first line, and names the format to give when it cannot tell", () => {
    const files = layout("lines", {
      "openhands.jsonl": `${JSON.stringify({ instance_id: "a", history: [] })}\n{}\n`,
      "mini.jsonl": `${JSON.stringify({ instance_id: "a", traj: {} })}\n`,
      "chat.jsonl": `${JSON.stringify({ messages: [] })}\n`,
      "other.jsonl": `${JSON.stringify({ prompt: "x" })}\n`,
    });
    expect(detectAgentFormat(join(files, "openhands.jsonl"))).toBe("openhands");
    expect(detectAgentFormat(join(files, "mini.jsonl"))).toBe("mini-swe-agent");
    expect(detectAgentFormat(join(files, "chat.jsonl"))).toBe("openai-chat");
    expect(() => detectAgentFormat(join(files, "other.jsonl"))).toThrow(`${join(files, "other.jsonl")}: not a layout an agent framework publishes; name the format: evotrainer import mini-swe-agent|swe-agent|openhands|openai-chat <file-or-dir>`);
    expect(() => detectAgentFormat(files)).toThrow(`${files}: no output.jsonl, .traj or .traj.json files in this directory; name the format`);
    const both = layout("both", { "a/output.jsonl": "{}\n", "b/x.traj": "{}" });
    expect(() => detectAgentFormat(both)).toThrow(`${both}: files of openhands and swe-agent in this directory; name the format`);
  });
});
