import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { probeHere } from "./local-probe.ts";

const spec = { id: "probe-test", stdin: "", files: {}, timeoutSeconds: 60 };

describe("probeHere", () => {
  it("runs the command in a directory holding its files, with stdin, and removes the directory", async () => {
    const result = await probeHere({ ...spec, command: ["sh", "-c", 'cat given.txt; tr a-z A-Z; pwd >&2; exit 4'], stdin: "from stdin", files: { "given.txt": "a file\n" } });
    expect(result).toMatchObject({ exitCode: 4, stdout: "a file\nFROM STDIN", where: "this machine" });
    expect(existsSync(result.stderr.trim())).toBe(false);
  });

  it("answers 127, the shell's code, for a command that does not exist", async () => {
    const result = await probeHere({ ...spec, command: ["/nonexistent/bin/python", "x.py"] });
    expect(result.exitCode).toBe(127);
    expect(result.stderr).toContain("/nonexistent/bin/python");
  });

  it("refuses an id that cannot name a directory and a file that would replace the executor's own", async () => {
    await expect(probeHere({ ...spec, id: "../up", command: ["true"] })).rejects.toThrow('probe id "../up"');
    await expect(probeHere({ ...spec, command: ["true"], files: { stdin: "x" } })).rejects.toThrow('"stdin" cannot be a file');
  });
});
