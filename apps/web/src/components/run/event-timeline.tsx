import type { RouterOutputs } from "@evotrainer/api";
import { fmtTime } from "../format";

export function EventTimeline({ events, basePath }: { events: RouterOutputs["run"]["events"]; basePath: string }) {
  if (events.length === 0) return <p className="muted">No events yet.</p>;
  return (
    <ol className="timeline" data-testid="event-timeline">
      {events.map((e) => (
        <li key={String(e.id)}>
          <span className="muted">{fmtTime(e.createdAt)}</span> <strong>{e.type}</strong>
          {e.branch && (
            <>
              {" "}
              on <a href={`${basePath}/branches/${e.branchId}`}>v{e.branch.version}</a>
            </>
          )}{" "}
          <span className="muted">by {e.actor}</span>
        </li>
      ))}
    </ol>
  );
}
