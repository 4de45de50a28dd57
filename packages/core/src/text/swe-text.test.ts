import { describe, expect, it } from "vitest";
import { missingModule } from "./missing-module.ts";
import { sweRepo } from "./swe-repo.ts";

describe("missingModule", () => {
  it("names the top-level module of real 'No module named' lines", () => {
    expect(missingModule("/usr/bin/python3: No module named pytest")).toBe("pytest");
    expect(missingModule("ModuleNotFoundError: No module named 'h5py'")).toBe("h5py");
    expect(missingModule("ModuleNotFoundError: No module named 'sympy.physics.quantum.trace'")).toBe("sympy");
    expect(missingModule("ImportError: No module named psycopg2.extras.")).toBe("psycopg2");
  });

  it("is empty for python -m on a package without __main__, and for output naming no module", () => {
    expect(missingModule("/opt/miniconda3/envs/testbed/bin/python3: No module named django.test.__main__; 'django.test' is a package and cannot be directly executed")).toBe("");
    expect(missingModule("3 passed in 0.1s")).toBe("");
  });
});

describe("sweRepo", () => {
  it("reads the repository of a SWE-bench instance id", () => {
    expect(sweRepo("pylint-dev__pylint-6386")).toBe("pylint");
    expect(sweRepo("sphinx-doc__sphinx-10673")).toBe("sphinx");
    expect(sweRepo("scikit-learn__scikit-learn-13328")).toBe("scikit-learn");
    expect(sweRepo("gsm8k-12")).toBe("");
  });
});
