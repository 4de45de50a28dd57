"use client";

import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

/**
 * False in the server render and during hydration, true after. A submit button disabled until then cannot post a
 * form natively before React owns it, and what was typed meanwhile stays in the uncontrolled inputs it reads.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
