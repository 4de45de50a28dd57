// Builds the CLI and the worker (scripts/bundle-node.mjs) when a source changed since their last
// build, or always with --force. `npm ci` (postinstall), the quickstart and the test runners call it,
// so no one runs a program older than its sources.
//
//   node scripts/build-programs.mjs [--force]
import { existsSync, readdirSync, statSync, utimesSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bundle } from "./bundle-node.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PROGRAMS = ["apps/cli", "apps/worker"];

/** The newest modification time under `path` (a file or a folder), 0 when it is missing. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), stat.mtimeMs);
}

/** Everything a program's bundle is made of: every workspace's sources, the lockfile, the patches to packages, the bundler. */
function sourcesChangedAt() {
  const workspaces = ["apps", "packages"].flatMap((dir) => readdirSync(join(root, dir)).map((name) => join(root, dir, name)));
  return Math.max(
    ...workspaces.flatMap((workspace) => [newest(join(workspace, "src")), newest(join(workspace, "package.json"))]),
    newest(join(root, "package-lock.json")),
    newest(join(root, "patches")),
    newest(join(root, "scripts/bundle-node.mjs")),
  );
}

const force = process.argv.includes("--force");
const changedAt = force ? Infinity : sourcesChangedAt();
for (const program of PROGRAMS) {
  const dir = join(root, program);
  if (newest(join(dir, "dist/main.js")) > changedAt) continue;
  const start = new Date();
  await bundle(dir);
  // Dated when the build began: a source saved while it ran is newer, and is built next time.
  utimesSync(join(dir, "dist/main.js"), start, start);
  console.log(`build-programs: built ${program} in ${((Date.now() - start.getTime()) / 1000).toFixed(1)} s`);
}
