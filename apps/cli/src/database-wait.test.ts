import { describe, expect, it } from "vitest";
import { failureLine } from "./database-wait.ts";

describe("failureLine", () => {
  it("keeps the driver's last line of a lost connection and drops Prisma's preamble", () => {
    const lost = Object.assign(new Error("\nInvalid `prisma.run.findFirst()` invocation:\n\n\nCan't reach database server at 127.0.0.1:5432"), { code: "P1001" });
    expect(failureLine(lost)).toBe("Can't reach database server at 127.0.0.1:5432");
  });

  it("leaves every other failure's message as it is", () => {
    expect(failureLine(new Error("no run with id x\nsecond line"))).toBe("no run with id x\nsecond line");
  });
});
