import { describe, expect, it } from "vitest";
import { safeRedirectPath } from "./safe-redirect";

describe("safeRedirectPath", () => {
  it.each(["/", "/runs/abc", "/runs/abc/branches/def?split=train&q=a%20b", "/approvals#top", "/share/evs_x/branches/b/rollouts?cursor=12"])(
    "keeps the same-site path %s",
    (path) => expect(safeRedirectPath(path)).toBe(path),
  );

  // Values as the page receives them, i.e. after the query string was decoded once.
  const bypasses = [
    "//evil.example",
    "///evil.example",
    "/\\evil.example/",
    "\\/evil.example",
    "\\\\evil.example",
    "/%5Cevil.example/",
    "/%5cevil.example/",
    "/%255Cevil.example/",
    "/%25255Cevil.example/",
    "%2F%2Fevil.example",
    "/%2Fevil.example",
    "/%252Fevil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r/evil.example",
    "/%09/evil.example",
    "/%0A/evil.example",
    "/%00/evil.example",
    "/\u0000/evil.example",
    "/./\\evil.example",
    "/.//evil.example",
    "/..//evil.example",
    "/a/../..//evil.example",
    "https://evil.example",
    "https:evil.example",
    "http:/evil.example",
    "HTTPS://evil.example",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    " //evil.example",
    "evil.example",
    "/%E0%A4%A",
    "",
  ];
  it.each(bypasses)("refuses %j", (target) => expect(safeRedirectPath(target)).toBe("/"));

  it("refuses a missing target", () => {
    expect(safeRedirectPath(undefined)).toBe("/");
    expect(safeRedirectPath(null)).toBe("/");
  });
});
