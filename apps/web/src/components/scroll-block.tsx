"use client";

import { useEffect, useRef, useState, type ReactNode } from "react";

/**
 * A block of text in a box of its own height (pre.text-block, pre.log): a long tool output scrolls
 * inside it. While its text overflows the box, the block takes a tab stop and is a region named
 * `name`, so a keyboard user reaches it and scrolls it with the arrow and page keys (axe's
 * scrollable-region-focusable); a block that fits takes no tab stop, so a trajectory of short turns
 * does not fill the tab order.
 */
export function ScrollBlock({ name, className = "text-block", children }: { name: string; className?: string; children: ReactNode }) {
  const ref = useRef<HTMLPreElement>(null);
  const [overflows, setOverflows] = useState(false);
  // No dependency list: new text (a highlight added, a turn loaded) changes the overflow without resizing the box.
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setOverflows(el.scrollHeight > el.clientHeight || el.scrollWidth > el.clientWidth);
    measure();
    // A block first laid out hidden (or resized with the window) is measured again when its box changes.
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  });
  return (
    <pre ref={ref} className={className} {...(overflows ? { tabIndex: 0, role: "region", "aria-label": name } : {})}>
      {children}
    </pre>
  );
}
