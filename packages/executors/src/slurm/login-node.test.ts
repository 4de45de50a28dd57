import { describe, expect, it } from "vitest";
import { localLogin } from "./login-node.ts";

describe("a local login node", () => {
  it("answers a command that exits without reading its input (no EPIPE that would crash the worker)", async () => {
    const login = localLogin({ PATH: process.env.PATH });
    for (let i = 0; i < 20; i++) {
      expect(await login.exec("exit 3", { stdin: "x".repeat(1 << 20) })).toEqual({ code: 3, stdout: "", stderr: "" });
    }
    expect(await login.exec("cat", { stdin: "fed" })).toMatchObject({ code: 0, stdout: "fed" });
  });

  it("gives Slurm's commands none of the worker's other variables", async () => {
    const login = localLogin({ PATH: process.env.PATH, SLURM_CONF: "/etc/x/slurm.conf", DATABASE_URL: "postgresql://secret" });
    expect((await login.exec("env")).stdout).toMatch(/^SLURM_CONF=\/etc\/x\/slurm.conf$/m);
    expect((await login.exec("env")).stdout).not.toContain("secret");
  });
});
