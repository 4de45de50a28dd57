// Packs the built CLI as an npm package a user installs without a clone of the repository:
//
//   node scripts/pack-cli.mjs [<out dir>]      then   npm i -g <out dir>/evotrainer-<version>.tgz
//
// The package holds the bin and the bundle (every dependency inside it, scripts/bundle-node.mjs),
// so installing it needs no registry and no build. Prints the tarball's path.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "apps/cli");
const out = resolve(process.argv[2] ?? ".");
mkdirSync(out, { recursive: true });

execFileSync(process.execPath, [join(root, "scripts/build-programs.mjs")], { stdio: ["ignore", "ignore", "inherit"] });
const source = JSON.parse(readFileSync(join(cli, "package.json"), "utf8"));
const rootPackage = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const staging = mkdtempSync(join(tmpdir(), "evotrainer-pack-"));
try {
  cpSync(join(cli, "bin"), join(staging, "bin"), { recursive: true });
  // The JavaScript and the query compiler's WebAssembly; source maps point at a checkout the user does not have.
  for (const file of readdirSync(join(cli, "dist")).filter((name) => /\.(js|wasm)$/.test(name))) cpSync(join(cli, "dist", file), join(staging, "dist", file));
  const manifest = {
    name: "evotrainer",
    version: source.version,
    description: source.description,
    type: "module",
    bin: source.bin,
    engines: rootPackage.engines,
  };
  writeFileSync(join(staging, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const [packed] = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: staging, encoding: "utf8" }));
  console.log(join(out, packed.filename));
} finally {
  rmSync(staging, { recursive: true, force: true });
}
