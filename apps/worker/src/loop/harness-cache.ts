import { compileHarness, type CompiledHarness } from "@evotrainer/core";
import { loadHarnessVersion, type Database } from "@evotrainer/db";

export interface LoadedHarness {
  harness: CompiledHarness;
  /** Database row id of each detector, by the harness's detector id. */
  detectorRowIds: Map<string, string>;
}

/** CEL rules are compiled once per harness version and process, then reused for every rollout. */
export class HarnessCache {
  private readonly cache = new Map<string, Promise<LoadedHarness>>();

  constructor(private readonly db: Database) {}

  get(harnessVersionId: string): Promise<LoadedHarness> {
    let entry = this.cache.get(harnessVersionId);
    if (!entry) {
      entry = loadHarnessVersion(this.db, harnessVersionId).then(({ definition, detectorRowIds }) => {
        const compiled = compileHarness(definition);
        if (!compiled.ok) {
          throw new Error(`harness ${harnessVersionId} does not compile: ${compiled.rejections.map((r) => `${r.id}: ${r.message}`).join("; ")}`);
        }
        return { harness: compiled.harness, detectorRowIds };
      });
      entry.catch(() => this.cache.delete(harnessVersionId));
      this.cache.set(harnessVersionId, entry);
    }
    return entry;
  }
}
