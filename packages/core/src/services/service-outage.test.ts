import { describe, expect, it } from "vitest";
import { isServiceUnavailable, observeService, serverAddress, serviceAddress } from "./service-outage.ts";
import { ServiceStatus } from "./service-status.ts";

const plan = { meanwhile: "retrying", resumed: "carrying on" };

describe("service outages", () => {
  it("says an outage once, and its end once", () => {
    const lines: string[] = [];
    const status = new ServiceStatus("PostgreSQL", "127.0.0.1:5433/evo", plan, (line) => lines.push(line));
    status.up();
    status.down("connect ECONNREFUSED 127.0.0.1:5433");
    status.down("connect ECONNREFUSED 127.0.0.1:5433");
    status.up();
    status.up();
    expect(lines).toEqual([
      "PostgreSQL at 127.0.0.1:5433/evo is unreachable; retrying (connect ECONNREFUSED 127.0.0.1:5433)",
      "PostgreSQL at 127.0.0.1:5433/evo answers again; carrying on",
    ]);
    expect(observeService("Redis", "r", { reachable: false, reason: "x" }, { ok: false, reason: "y" }, plan)).toEqual({ state: { reachable: false, reason: "y" }, line: null });
  });

  it("tells a service that is away from a query that is wrong, through wrapped causes", () => {
    expect(isServiceUnavailable(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }))).toBe(true);
    expect(isServiceUnavailable(new Error("wrapped", { cause: Object.assign(new Error("connect"), { code: "ECONNREFUSED" }) }))).toBe(true);
    expect(isServiceUnavailable(new AggregateError([Object.assign(new Error(""), { code: "ECONNREFUSED" })]))).toBe(true);
    expect(isServiceUnavailable(Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505" }))).toBe(false);
    expect(isServiceUnavailable("ECONNREFUSED")).toBe(false);
  });

  it("names a server without its credentials", () => {
    expect(serviceAddress("postgresql://evo:secret@db.example:5432/evotrainer")).toBe("db.example:5432/evotrainer");
    expect(serviceAddress("redis://:pw@127.0.0.1:6379")).toBe("127.0.0.1:6379");
    expect(serverAddress("postgresql://evo:secret@db.example/evotrainer")).toBe("db.example:5432");
    expect(serverAddress("redis://:pw@127.0.0.1:6380")).toBe("127.0.0.1:6380");
  });
});
