/**
 * "N already present", with how many of those rows took a different result from the lines read
 * again (a result joined on a re-import, a regraded file): said only where rows were read again.
 */
export function alreadyPresentText(alreadyPresent: number, resultsChanged: number): string {
  return `${alreadyPresent} already present${alreadyPresent > 0 ? ` (${resultsChanged} of their stored results changed)` : ""}`;
}
