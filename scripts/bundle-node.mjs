// Builds a Node program of this monorepo (the CLI, the worker) into plain JavaScript with esbuild,
// so that it starts without transpiling TypeScript at every start.
//
//   node scripts/bundle-node.mjs <app dir>
//
// Everything is bundled, npm packages too: Node then neither resolves packages nor scans CommonJS
// files at start-up (a third of `evotrainer status` when they stayed in node_modules). Each command
// of the CLI is a chunk loaded on demand, so `--version` loads a few kilobytes. Files read beside a
// source file (`new URL("./x.py", import.meta.url)`) are read from the checkout, where they live.
import { build } from "esbuild";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

// The labeller's worker thread is an entry of its own: a thread loads it by file (see labeler-pool.ts).
const labelThread = join(root, "packages/db/src/ingest/label-thread.ts");

/** A workspace source file keeps its own location for `import.meta.url`, wherever its code lands. */
const sourceUrls = {
  name: "source-urls",
  setup(b) {
    // Only the workspace's own sources: a plugin sees each file it matches, which costs time.
    const filter = new RegExp(`^${root.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/(apps|packages)/[^/]+/src/.*\\.ts$`);
    b.onLoad({ filter }, (args) => {
      const text = readFileSync(args.path, "utf8");
      if (!text.includes("import.meta.url")) return { contents: text, loader: "ts" };
      return { contents: text.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)), loader: "ts" };
    });
  },
};

/**
 * Native addons (ssh2's crypto, cpu-features) are optional: their packages fall back to JavaScript
 * when the require fails, which it does from a bundle.
 */
const optionalNative = {
  name: "optional-native",
  setup(b) {
    b.onResolve({ filter: /\.node$|^pg-native$/ }, (args) => ({ path: args.path, external: true }));
  },
};

/**
 * pg asks whether it runs in a Cloudflare Worker by constructing a `Response` when `navigator` is
 * missing (Node 20), and that first touch of the fetch globals loads undici: a tenth of
 * `evotrainer status`, in every program that connects to Postgres. A bundle runs on Node only, so
 * the Node stream functions are chosen outright.
 */
const pgNodeStreams = {
  name: "pg-node-streams",
  setup(b) {
    b.onLoad({ filter: /node_modules\/pg\/lib\/stream\.js$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      const probe = "if (isCloudflareRuntime()) {";
      // A pg release that changed this function should fail the build, not quietly load undici again.
      if (!text.includes(probe)) throw new Error(`${args.path}: no "${probe}" to replace; update the pg-node-streams plugin`);
      return { contents: text.replace(probe, "if (false) {"), loader: "js" };
    });
  },
};

/**
 * Prisma ships its query compiler as a 4.5 MB JavaScript string of base64, which every start parsed
 * (about a tenth of `evotrainer status`). The bundle keeps it as a binary file beside the chunks and
 * reads it when the client is first used; the client still receives the base64 it expects.
 */
function prismaWasmFile(outdir) {
  return {
    name: "prisma-wasm-file",
    setup(b) {
      b.onLoad({ filter: /query_compiler_fast_bg\.postgresql\.wasm-base64\.mjs$/ }, async (args) => {
        const { wasm } = await import(pathToFileURL(args.path).href);
        mkdirSync(outdir, { recursive: true });
        writeFileSync(join(outdir, "query-compiler.wasm"), Buffer.from(wasm, "base64"));
        return {
          contents: 'import { readFileSync } from "node:fs";\nexport const wasm = readFileSync(new URL("./query-compiler.wasm", __evoBundleUrl)).toString("base64");\n',
          loader: "js",
        };
      });
    },
  };
}

/** Builds `app` (a folder with src/main.ts) into app/dist: an entry, the label thread, and a chunk per command. */
export async function bundle(app) {
  // Built beside, then swapped in: a program starting from dist, or a second build at the same time
  // (two test runs), never meets a half-written one.
  const dist = join(app, "dist");
  const fresh = `${dist}.${process.pid}`;
  const result = await build({
    bundle: true,
    platform: "node",
    target: "node20.19",
    format: "esm",
    sourcemap: "linked",
    sourcesContent: false,
    logLevel: "warning",
    // EVO_BUNDLE_META=1 leaves dist/meta.json: which sources each chunk holds and what it imports, to
    // see what a command loads at start (docs/install-cli.md, "How fast it starts").
    metafile: Boolean(process.env.EVO_BUNDLE_META),
    entryPoints: { main: join(app, "src/main.ts"), "label-thread": labelThread },
    outdir: fresh,
    splitting: true,
    // Beside the entries: a chunk finds the label thread as its sibling.
    chunkNames: "[name]-[hash]",
    // The bundle's own address, for files emitted beside it (the label thread); CommonJS packages
    // inside an ES module still call require() and read __dirname.
    banner: {
      js: [
        "const __evoBundleUrl = import.meta.url;",
        'import { createRequire as __evoCreateRequire } from "node:module";',
        'import { fileURLToPath as __evoFileURLToPath } from "node:url";',
        "const require = __evoCreateRequire(import.meta.url);",
        "const __filename = __evoFileURLToPath(import.meta.url);",
        'const __dirname = __filename.slice(0, __filename.lastIndexOf("/"));',
      ].join("\n"),
    },
    define: { EVO_BUNDLE_URL: "__evoBundleUrl" },
    plugins: [sourceUrls, optionalNative, pgNodeStreams, prismaWasmFile(fresh)],
  }).catch((error) => {
    rmSync(fresh, { recursive: true, force: true });
    throw error;
  });
  if (result.metafile) writeFileSync(join(fresh, "meta.json"), JSON.stringify(result.metafile));
  const old = `${dist}.old.${process.pid}`;
  if (existsSync(dist)) renameSync(dist, old);
  try {
    renameSync(fresh, dist);
  } catch (error) {
    // Another build of the same sources swapped its own in meanwhile: keep that one.
    if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
    rmSync(fresh, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [app] = process.argv.slice(2);
  if (!app) {
    console.error("usage: node scripts/bundle-node.mjs <app dir>");
    process.exit(2);
  }
  await bundle(resolve(app));
}
