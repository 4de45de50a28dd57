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
const cli = spawnSync("node_modules/.bin/tsx", ["apps/cli/src/main.ts", "quickstart", ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(cli.status ?? 1);
