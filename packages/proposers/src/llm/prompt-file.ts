import { readFileSync } from "node:fs";

/** A versioned prompt: its id ("propose.v1") goes into every call record, so a call names the exact text it was sent. */
export interface PromptFile {
  id: string;
  text: string;
}

const PROMPTS_DIR = new URL("../../prompts/", import.meta.url);
const loaded = new Map<string, PromptFile>();

/** Reads `packages/proposers/prompts/<id>.md` once per process. */
export function promptFile(id: string): PromptFile {
  let prompt = loaded.get(id);
  if (!prompt) {
    prompt = { id, text: readFileSync(new URL(`${id}.md`, PROMPTS_DIR), "utf8") };
    loaded.set(id, prompt);
  }
  return prompt;
}
