#!/usr/bin/env node
// The gym is TypeScript run through tsx, like the CLI and the worker; no separate build step.
import { register } from "tsx/esm/api";

register();
await import("../src/cli.ts");
