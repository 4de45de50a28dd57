// npm run quickstart — works on a fresh clone: installs dependencies when missing, then hands
// over to the CLI (`evotrainer quickstart`), which checks services, migrates, builds and serves.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync("node_modules/.bin/tsx")) {
  console.log("quickstart: installing dependencies (npm ci)…");
  const install = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { stdio: "inherit" });
  if (install.status !== 0) {
    console.error("quickstart: `npm ci` failed; fix the error above and run `npm run quickstart` again.");
    process.exit(install.status ?? 1);
  }
}
// The CLI and the worker as built JavaScript, rebuilt where a source changed since their last build.
const build = spawnSync(process.execPath, ["scripts/build-programs.mjs"], { stdio: "inherit" });
if (build.status !== 0) {
  console.error("quickstart: building the CLI and the worker failed; see the errors above.");
  process.exit(build.status ?? 1);
}
const cli = spawnSync(process.execPath, ["apps/cli/bin/evotrainer.js", "quickstart", ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(cli.status ?? 1);
