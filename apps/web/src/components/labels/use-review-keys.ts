import { useEffect } from "react";

/**
 * Keyboard review: y (the label holds), n (it does not), and any other keys the page names. Keys typed
 * into a field (the note) are text, not commands.
 */
export function useReviewKeys(enabled: boolean, keys: Record<string, () => void>): void {
  useEffect(() => {
    if (!enabled) return;
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT" || target.isContentEditable)) return;
      if (event.metaKey || event.ctrlKey || event.altKey) return;
      const action = keys[event.key];
      if (!action) return;
      event.preventDefault();
      action();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [enabled, keys]);
}
