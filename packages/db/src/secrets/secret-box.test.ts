import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { masterKeyFrom, openSecret, sealSecret } from "./secret-box.ts";

const key = randomBytes(32);
const secret = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n";

describe("secret box", () => {
  it("round-trips, and the sealed bytes do not contain the secret", () => {
    const sealed = sealSecret(secret, key, "gpu-1");
    expect(sealed.includes(Buffer.from("b3BlbnNzaC1rZXkt"))).toBe(false);
    expect(openSecret(sealed, key, "gpu-1")).toBe(secret);
  });

  it("refuses another master key, another row's context and altered bytes", () => {
    const sealed = sealSecret(secret, key, "gpu-1");
    expect(() => openSecret(sealed, randomBytes(32), "gpu-1")).toThrow(/does not open with this EVO_MASTER_KEY/);
    expect(() => openSecret(sealed, key, "gpu-2")).toThrow(/gpu-2/);
    const altered = Buffer.from(sealed);
    altered[altered.length - 1]! ^= 1;
    expect(() => openSecret(altered, key, "gpu-1")).toThrow(/altered/);
  });

  it("reads the master key as base64 or hex and says how to make one", () => {
    expect(masterKeyFrom({ EVO_MASTER_KEY: key.toString("base64") })).toEqual(key);
    expect(masterKeyFrom({ EVO_MASTER_KEY: key.toString("hex") })).toEqual(key);
    expect(() => masterKeyFrom({})).toThrow(/openssl rand -base64 32/);
    expect(() => masterKeyFrom({ EVO_MASTER_KEY: "c2hvcnQ=" })).toThrow(/must be 32 bytes/);
  });
});
