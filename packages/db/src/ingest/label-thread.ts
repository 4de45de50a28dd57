// A worker thread of the labeller pool: compiles each harness version once, then labels the
// rollouts it is sent. Runs CPU-heavy CEL evaluation off the ingesting thread.
import { parentPort } from "node:worker_threads";
import { compileHarness, type CompiledHarness, type HarnessDefinition } from "@evotrainer/core";
import type { LabelRequest, LabelResponse } from "./labeler-pool.ts";

const compiled = new Map<string, CompiledHarness>();

function harnessFor(key: string, definition: HarnessDefinition | undefined): CompiledHarness {
  let harness = compiled.get(key);
  if (!harness) {
    if (!definition) throw new Error(`harness ${key} was never sent to this thread`);
    const result = compileHarness(definition);
    if (!result.ok) throw new Error(`harness ${key} does not compile: ${result.rejections.map((r) => r.message).join("; ")}`);
    harness = result.harness;
    compiled.set(key, harness);
  }
  return harness;
}

parentPort!.on("message", (request: LabelRequest) => {
  let response: LabelResponse;
  try {
    const harness = harnessFor(request.harnessKey, request.definition);
    response = { id: request.id, labels: harness.label(request.rollouts, request.domain, { maxResponseTokens: request.maxResponseTokens }).labels };
  } catch (error) {
    response = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(response);
});
parentPort!.postMessage({ ready: true } satisfies LabelResponse);
