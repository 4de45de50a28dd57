"use client";

import { useRouter } from "next/navigation";
import { startTransition, useCallback, useEffect, useState } from "react";

interface Health {
  postgres: "ok" | "unreachable";
  redis: "ok" | "unreachable";
}

const SERVICES = { postgres: "PostgreSQL", redis: "Redis" } as const;
const LONGEST_WAIT_MS = 10_000;

/** What /api/health says, or null while the dashboard's server itself does not answer. */
async function health(): Promise<Health | null> {
  try {
    return (await (await fetch("/api/health", { cache: "no-store" })).json()) as Health;
  } catch {
    return null;
  }
}

/**
 * A page that failed to render. Most often its server could not reach PostgreSQL or Redis (a restart,
 * a failover): then it says which one, looks again with a backoff, and renders the page once both
 * answer, rather than leaving a person on a 500 page to reload by hand. Any other failure says so,
 * with the digest an operator finds in the server's log.
 */
export default function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const router = useRouter();
  const [down, setDown] = useState<string[] | null>(null);
  const [checked, setChecked] = useState(false);
  const retry = useCallback(() => startTransition(() => {
    router.refresh();
    reset();
  }), [router, reset]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let wait = 1_000;
    let wasDown = false;
    const look = async () => {
      const answer = await health();
      if (stopped) return;
      const away = answer ? (Object.keys(SERVICES) as (keyof Health)[]).filter((s) => answer[s] !== "ok").map((s) => SERVICES[s]) : ["the dashboard's server"];
      setChecked(true);
      setDown(away);
      if (away.length === 0) {
        if (wasDown) retry();
        return;
      }
      wasDown = true;
      timer = setTimeout(() => void look(), wait);
      wait = Math.min(wait * 2, LONGEST_WAIT_MS);
    };
    void look();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [retry]);

  if (down && down.length > 0) {
    return (
      <main className="page">
        <div role="alert" className="notice" data-testid="service-outage">
          <strong>The dashboard cannot reach {down.join(" or ")} right now.</strong> This page loads again by itself once it answers; nothing
          you did is lost, and the runs go on in the workers.
        </div>
      </main>
    );
  }
  return (
    <main className="page">
      <h1>This page could not be shown</h1>
      <p data-testid="page-error">
        {checked ? "PostgreSQL and Redis both answer, so this is a fault of the page itself." : "Looking at what went wrong…"}
        {error.digest ? ` The server's log names it by digest ${error.digest}.` : ""}
      </p>
      <p>
        <button type="button" onClick={retry}>
          Try again
        </button>{" "}
        <a href="/">Back to the runs</a>
      </p>
    </main>
  );
}
