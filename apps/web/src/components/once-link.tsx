"use client";

/** A link shown once, with the whole URL to copy: only its hash stays on the server. */
export function OnceLink({ label, path, expiresAt, onClose }: { label: string; path: string; expiresAt: Date; onClose: () => void }) {
  const url = `${window.location.origin}${path}`;
  return (
    <div className="notice link-once" data-testid="once-link">
      <strong>{label}</strong>
      <code data-testid="once-link-url">{url}</code>
      <span className="muted">
        Shown once. Works for one use until {expiresAt.toLocaleString()}. Send it yourself: EvoTrainer sends no mail.
      </span>
      <div className="row">
        <button className="btn" onClick={() => void navigator.clipboard?.writeText(url)}>
          Copy link
        </button>
        <button className="btn ghost" onClick={onClose}>
          Done
        </button>
      </div>
    </div>
  );
}
