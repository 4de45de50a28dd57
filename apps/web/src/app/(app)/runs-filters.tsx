"use client";

import { useRouter } from "next/navigation";
import type { RunListInput } from "@evotrainer/api";

type Input = RunListInput;

const STATUSES = ["pending", "running", "paused", "stopping", "finishing", "completed", "failed", "cancelled"];
const DOMAINS = ["math", "code", "swe", "custom"];

/** Filter and sort live in the URL, so a filtered view can be bookmarked and shared. */
export function RunsFilters({ input }: { input: Input }) {
  const router = useRouter();
  const set = (key: string, value: string) => {
    const params = new URLSearchParams();
    const next = { ...input, [key]: value } as Record<string, unknown>;
    for (const [k, v] of Object.entries(next)) if (v !== undefined && v !== "") params.set(k, String(v));
    router.replace(`/?${params.toString()}`);
  };
  return (
    <div className="filters" data-testid="runs-filters">
      <input placeholder="Search runs" defaultValue={input.q ?? ""} onKeyDown={(e) => e.key === "Enter" && set("q", e.currentTarget.value)} aria-label="Search runs" />
      <select value={input.status ?? ""} onChange={(e) => set("status", e.target.value)} aria-label="Status">
        <option value="">any status</option>
        {STATUSES.map((s) => (
          <option key={s}>{s}</option>
        ))}
      </select>
      <select value={input.domain ?? ""} onChange={(e) => set("domain", e.target.value)} aria-label="Domain">
        <option value="">any domain</option>
        {DOMAINS.map((d) => (
          <option key={d}>{d}</option>
        ))}
      </select>
      <select value={input.sort ?? "created"} onChange={(e) => set("sort", e.target.value)} aria-label="Sort by">
        <option value="created">newest</option>
        <option value="name">name</option>
        <option value="score">best score</option>
        <option value="waiting">waiting decisions</option>
      </select>
      <select value={input.dir ?? "desc"} onChange={(e) => set("dir", e.target.value)} aria-label="Direction">
        <option value="desc">descending</option>
        <option value="asc">ascending</option>
      </select>
    </div>
  );
}
