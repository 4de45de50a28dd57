import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const tracked = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" }).split("\n").filter(Boolean);
const pages = tracked.filter((f) => f === "README.md" || (f.startsWith("docs/") && f.endsWith(".md")));

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const slugs = new Set<string>();
  for (const line of markdown.split("\n")) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    slugs.add(heading[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-"));
  }
  return slugs;
}

function links(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe("documentation links", () => {
  it("finds the landing page and the docs tree", () => {
    expect(pages).toContain("README.md");
    expect(pages.filter((p) => p.startsWith("docs/")).length).toBeGreaterThanOrEqual(10);
  });

  it.each(pages)("every relative link in %s reaches a file (and its heading) in the repository", (page) => {
    const text = readFileSync(join(root, page), "utf8");
    const broken: string[] = [];
    for (const link of links(text)) {
      if (/^[a-z]+:/i.test(link)) continue;
      const [path, anchor] = link.split("#") as [string, string | undefined];
      const target = path ? resolve(dirname(join(root, page)), decodeURIComponent(path)) : join(root, page);
      if (relative(root, target).startsWith("..")) broken.push(`${link}: outside the repository`);
      else if (!existsSync(target)) broken.push(`${link}: no such file`);
      else if (anchor && statSync(target).isFile() && target.endsWith(".md") && !anchors(readFileSync(target, "utf8")).has(anchor)) broken.push(`${link}: no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });

  it("keeps the README a landing page (at most 10 KB)", () => {
    expect(statSync(join(root, "README.md")).size).toBeLessThanOrEqual(10 * 1024);
  });

  it("refers to no file outside the repository", () => {
    // git grep exits 1 when nothing matches, which is the passing case.
    const grep = spawnSync("git", ["grep", "-n", "-I", "-e", "\\.\\./shared", "-e", "next to this repository", "--", ".", ":!tests/docs/links.test.ts"], { cwd: root, encoding: "utf8" });
    expect(grep.status, grep.stderr).toBe(1);
    expect(grep.stdout).toBe("");
  });
});
