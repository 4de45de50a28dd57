"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { createColumnHelper, tableFeatures, useTable } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { RouterOutputs } from "@evotrainer/api";
import { useTRPC } from "~/trpc/react";
import { fmtReward } from "../format";
import { LabelChip } from "../labels/label-chip";
import { RolloutDetail } from "./rollout-detail";

type Row = RouterOutputs["rollout"]["list"]["items"][number];

const features = tableFeatures({});
const helper = createColumnHelper<typeof features, Row>();
const columns = helper.columns([
  helper.accessor((r) => String(r.id), { id: "id", header: "id" }),
  helper.accessor("split", { header: "split" }),
  helper.accessor("step", { header: "step" }),
  helper.accessor("taskId", { header: "task" }),
  helper.accessor("sample", { header: "sample" }),
  helper.accessor((r) => fmtReward(r.reward), { id: "reward", header: "reward" }),
  helper.accessor("responseTokens", { header: "tokens" }),
  helper.accessor((r) => r.labels.map((l) => l.label).join(", "), {
    id: "labels",
    header: "labels",
    cell: (info) => info.row.original.labels.map((l) => <LabelChip key={l.label} quality={l.quality} />),
  }),
]);
const EMPTY: Row[] = [];
// A row's height before it is measured: rows whose labels wrap onto more lines grow once measured.
const ROW_HEIGHT = 32;

const FILTERS = ["split", "step", "label", "rewardMin", "rewardMax", "q"] as const;

function useFilters() {
  const params = useSearchParams();
  const num = (k: string) => (params.get(k) !== null && params.get(k) !== "" && Number.isFinite(Number(params.get(k))) ? Number(params.get(k)) : undefined);
  const str = (k: string) => params.get(k) || undefined;
  return {
    split: str("split") as "train" | "promotion" | "sealed" | undefined,
    step: num("step"),
    label: str("label"),
    rewardMin: num("rewardMin"),
    rewardMax: num("rewardMax"),
    q: str("q"),
    selected: str("r"),
  };
}

/** Server-paged (keyset), virtualized rollouts of one branch; filters and the open rollout live in the URL. */
export function RolloutsExplorer({ branchId, basePath, readOnly }: { branchId: string; basePath: string; readOnly: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const { selected, ...filters } = useFilters();
  const [help, setHelp] = useState(false);
  // Controlled, unlike the other fields: its options arrive after the form mounts, and an uncontrolled
  // select would then show "any label" for a `?label=` from the URL and drop it on the next Apply.
  const [label, setLabel] = useState(filters.label ?? "");
  useEffect(() => setLabel(filters.label ?? ""), [filters.label]);

  const setParam = useCallback(
    // A filter is a place the Back button returns to; moving between rollouts is not.
    (updates: Record<string, string | undefined>, history: "push" | "replace" = "replace") => {
      const next = new URLSearchParams(params.toString());
      for (const [k, v] of Object.entries(updates)) {
        if (v === undefined || v === "") next.delete(k);
        else next.set(k, v);
      }
      router[history](`${pathname}?${next.toString()}`, { scroll: false });
    },
    [params, pathname, router],
  );

  const labelCounts = useQuery(trpc.rollout.labelCounts.queryOptions({ branchId }));
  const list = useInfiniteQuery(
    trpc.rollout.list.infiniteQueryOptions({ branchId, ...filters, limit: 100 }, { getNextPageParam: (page) => page.nextCursor ?? undefined }),
  );
  // Said while the search index lags ingest (those rollouts are still searched, only more slowly),
  // and looked at again until it has caught up.
  const searchLag = useQuery({
    ...trpc.rollout.searchLag.queryOptions({ branchId }),
    enabled: filters.q !== undefined,
    refetchInterval: (query) => (query.state.data?.unindexed ? 5_000 : false),
  });
  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.items) ?? EMPTY, [list.data]);
  const table = useTable({ features, columns, data: rows, getRowId: (r) => String(r.id) });
  const tableRows = table.getRowModel().rows;

  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: tableRows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 10 });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? 0;
  useEffect(() => {
    if (lastIndex >= tableRows.length - 20 && list.hasNextPage && !list.isFetchingNextPage) void list.fetchNextPage();
  }, [lastIndex, tableRows.length, list]);

  const selectedIndex = selected ? tableRows.findIndex((r) => r.id === selected) : -1;
  const move = useCallback(
    (delta: number) => {
      const index = Math.min(Math.max(selectedIndex + delta, 0), tableRows.length - 1);
      const row = tableRows[index];
      if (!row) return;
      setParam({ r: row.id });
      virtualizer.scrollToIndex(index, { align: "auto" });
      if (index >= tableRows.length - 5 && list.hasNextPage) void list.fetchNextPage();
    },
    [selectedIndex, tableRows, setParam, virtualizer, list],
  );

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName)) return;
      if (e.key === "j") move(1);
      else if (e.key === "k") move(-1);
      else if (e.key === "?") setHelp((h) => !h);
      else if (e.key === "Escape") (help ? setHelp(false) : setParam({ r: undefined }));
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [move, help, setParam]);

  return (
    <main className="page wide">
      <header className="run-header">
        <a href={`${basePath}/branches/${branchId}`}>← branch</a>
        <h1>Rollouts</h1>
        <span className="muted">j / k: next / previous · ?: shortcuts</span>
      </header>
      <form
        className="filters"
        data-testid="rollout-filters"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          setParam({ ...Object.fromEntries(FILTERS.map((k) => [k, String(form.get(k) ?? "")])), r: undefined }, "push");
        }}
        key={params.toString()}
      >
        <select name="split" defaultValue={filters.split ?? ""} aria-label="Split">
          <option value="">any split</option>
          <option>train</option>
          <option>promotion</option>
        </select>
        <input name="step" type="number" min={0} placeholder="step" defaultValue={filters.step ?? ""} aria-label="Step" />
        <select name="label" value={label} onChange={(e) => setLabel(e.target.value)} aria-label="Label">
          <option value="">any label</option>
          {filters.label && !labelCounts.data?.some((l) => l.label === filters.label) && <option value={filters.label}>{filters.label} (none here)</option>}
          {labelCounts.data?.map((l) => (
            <option key={l.label} value={l.label}>
              {l.label} ({l.count})
            </option>
          ))}
        </select>
        <input name="rewardMin" type="number" step="any" placeholder="reward ≥" defaultValue={filters.rewardMin ?? ""} aria-label="Minimum reward" />
        <input name="rewardMax" type="number" step="any" placeholder="reward ≤" defaultValue={filters.rewardMax ?? ""} aria-label="Maximum reward" />
        <input name="q" placeholder="search task or text" defaultValue={filters.q ?? ""} aria-label="Search" />
        <button className="btn" type="submit">
          Apply
        </button>
      </form>
      {filters.q !== undefined && searchLag.data && searchLag.data.unindexed > 0 && (
        <p className="muted" data-testid="search-lag">
          The search index has not reached the {searchLag.data.unindexed >= searchLag.data.limit ? `${searchLag.data.limit.toLocaleString("en")}+` : searchLag.data.unindexed.toLocaleString("en")}{" "}
          newest rollouts yet: they are searched by a scan, which is slower.
        </p>
      )}
      <div className={`explorer${selected ? " with-detail" : ""}`}>
        <div className="rollout-table" data-testid="rollouts-table">
          {/* A virtualized grid of divs, so the table semantics are spelled out for screen readers. */}
          <div role="table" aria-label="Rollouts" aria-rowcount={tableRows.length + 1}>
            <div className="rt-head" role="row" aria-rowindex={1}>
              {table.getHeaderGroups()[0]!.headers.map((h) => (
                <span key={h.id} className={`rt-cell rt-${h.id}`} role="columnheader">
                  <table.FlexRender header={h} />
                </span>
              ))}
            </div>
            {tableRows.length > 0 && (
              // Focusable so the scroll region can be reached and scrolled from the keyboard.
              <div ref={scrollRef} className="rt-body" tabIndex={0} role="rowgroup" aria-label="Rollout rows, scrollable">
                <div style={{ height: virtualizer.getTotalSize(), position: "relative" }} role="presentation">
                  {items.map((item) => {
                    const row = tableRows[item.index]!;
                    return (
                      <div
                        key={row.id}
                        ref={virtualizer.measureElement}
                        data-index={item.index}
                        role="row"
                        aria-rowindex={item.index + 2}
                        data-testid="rollout-row"
                        className={`rt-row${row.id === selected ? " selected" : ""}`}
                        style={{ position: "absolute", top: 0, transform: `translateY(${item.start}px)`, minHeight: ROW_HEIGHT, width: "100%" }}
                        onClick={() => setParam({ r: row.id })}
                      >
                        {row.getAllCells().map((cell) => (
                          <span key={cell.id} className={`rt-cell rt-${cell.column.id}`} role="cell">
                            <table.FlexRender cell={cell} />
                          </span>
                        ))}
                      </div>
                    );
                  })}
                </div>
              </div>
            )}
          </div>
          {list.error ? (
            <p className="error" role="alert">
              Could not load rollouts: {list.error.message}
            </p>
          ) : list.isPending ? (
            <p className="muted">Loading rollouts…</p>
          ) : tableRows.length === 0 ? (
            <p className="empty">No rollouts match these filters.</p>
          ) : null}
          <p className="muted">
            {tableRows.length} loaded{list.hasNextPage ? " (scroll for more)" : ""}
          </p>
        </div>
        {selected && <RolloutDetail rolloutId={selected} readOnly={readOnly} onClose={() => setParam({ r: undefined })} />}
      </div>
      {help && (
        <div className="modal" role="dialog" aria-label="Keyboard shortcuts" data-testid="shortcuts">
          <h3>Keyboard shortcuts</h3>
          <dl className="facts">
            <dt>j</dt>
            <dd>next rollout in the filtered set</dd>
            <dt>k</dt>
            <dd>previous rollout</dd>
            <dt>Esc</dt>
            <dd>close the detail (or this list)</dd>
            <dt>?</dt>
            <dd>show or hide this list</dd>
          </dl>
        </div>
      )}
    </main>
  );
}
