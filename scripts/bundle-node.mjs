// Builds a Node program of this monorepo (the CLI, the worker) into plain JavaScript with esbuild,
// so that it starts without transpiling TypeScript at every start.
//
//   node scripts/bundle-node.mjs <app dir> [--standalone <outdir>]
//
// The default build bundles the workspace's own TypeScript and leaves npm packages to node_modules;
// each command of the CLI is a chunk loaded on demand. Files read beside a source file
// (`new URL("./x.py", import.meta.url)`) are read from the checkout, where they live.
// --standalone writes one file holding every dependency too (and the label thread beside it): the
// CLI a user installs without a clone.
import { build } from "esbuild";
import { readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const [appArg, flag, standaloneOut] = process.argv.slice(2);
if (!appArg || (flag && (flag !== "--standalone" || !standaloneOut))) {
  console.error("usage: node scripts/bundle-node.mjs <app dir> [--standalone <outdir>]");
  process.exit(2);
}
const app = resolve(appArg);
const standalone = flag === "--standalone";

// The labeller's worker thread is an entry of its own: a thread loads it by file (see labeler-pool.ts).
const labelThread = join(root, "packages/db/src/ingest/label-thread.ts");

/** A workspace source file keeps its own location for `import.meta.url`, wherever its code lands. */
const sourceUrls = {
  name: "source-urls",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${"/"}node_modules${"/"}`)) return undefined;
      const text = readFileSync(args.path, "utf8");
      if (!text.includes("import.meta.url")) return { contents: text, loader: "ts" };
      return { contents: text.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)), loader: "ts" };
    });
  },
};

/** npm packages stay in node_modules (the workspace's @evotrainer/* packages are TypeScript: bundled). */
const npmExternal = {
  name: "npm-external",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith("@evotrainer/") ? undefined : { path: args.path, external: true }));
  },
};

/**
 * Native addons (ssh2's crypto, cpu-features) are optional: their packages fall back to JavaScript
 * when the require fails, which it does from a single file.
 */
const optionalNative = {
  name: "optional-native",
  setup(b) {
    b.onResolve({ filter: /\.node$|^pg-native$/ }, (args) => ({ path: args.path, external: true }));
  },
};

// CommonJS packages inside an ES module still call require() and read __dirname.
const commonJsGlobals = [
  'import { createRequire as __evoCreateRequire } from "node:module";',
  'import { fileURLToPath as __evoFileURLToPath } from "node:url";',
  "const require = __evoCreateRequire(import.meta.url);",
  "const __filename = __evoFileURLToPath(import.meta.url);",
  'const __dirname = __filename.slice(0, __filename.lastIndexOf("/"));',
];

const common = {
  bundle: true,
  platform: "node",
  target: "node20.19",
  format: "esm",
  sourcemap: "linked",
  logLevel: "warning",
  // The bundle's own address, for files emitted beside it (the label thread).
  banner: { js: "const __evoBundleUrl = import.meta.url;" },
  define: { EVO_BUNDLE_URL: "__evoBundleUrl" },
};

if (standalone) {
  await build({
    ...common,
    entryPoints: { main: join(app, "src/main.ts"), "label-thread": labelThread },
    outdir: resolve(standaloneOut),
    sourcemap: false,
    minify: true,
    // CommonJS packages inside an ES module still call require() and read __dirname.
    banner: { js: [common.banner.js, ...commonJsGlobals].join("\n") },
    plugins: [sourceUrls, optionalNative],
  });
} else {
  rmSync(join(app, "dist"), { recursive: true, force: true });
  await build({
    ...common,
    entryPoints: { main: join(app, "src/main.ts"), "label-thread": labelThread },
    outdir: join(app, "dist"),
    splitting: true,
    // Beside the entries: a chunk finds the label thread as its sibling.
    chunkNames: "[name]-[hash]",
    banner: { js: [common.banner.js, ...commonJsGlobals].join("\n") },
    plugins: [sourceUrls, optionalNative],
  });
}
