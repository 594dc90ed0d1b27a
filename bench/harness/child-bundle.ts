/**
 * The measurement child as shipped code: one esbuild bundle of the bench and the packages' sources
 * (what tsup builds for npm is the same kind of bundle), run by plain `node`. Running the TypeScript
 * through tsx instead would count the loader in every figure: tsx alone adds ~35 MiB of RSS, more
 * than a whole-history sync at 1M rows needs (docs/benchmarks-history.md, "Memory").
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

/**
 * Each module keeps its own `import.meta.url` (the bench resolves sibling files from it), and only
 * the workspace's packages are bundled: every other dependency is loaded from node_modules, as a
 * user's install would.
 */
const asShipped: Plugin = {
  name: 'as-shipped',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@finsync/') ? undefined : { path: args.path, external: true },
    );
    build.onLoad({ filter: /\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replaceAll(
        'import.meta.url',
        JSON.stringify(pathToFileURL(args.path).href),
      ),
      loader: 'ts',
    }));
  },
};

const bundles = new Map<string, Promise<string>>();

/**
 * The bundle of `entry` (a bench script), built once per bench run and removed when the process
 * exits. It is written below the repository's node_modules so the dependencies left out of it
 * resolve as they would for an installed package.
 */
export function bundleScript(entry: URL): Promise<string> {
  let bundled = bundles.get(entry.href);
  if (!bundled) {
    bundled = (async () => {
      const cache = new URL('../../node_modules/.cache/finsync-bench', import.meta.url).pathname;
      mkdirSync(cache, { recursive: true });
      const dir = mkdtempSync(join(cache, 'child-'));
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
      const outfile = join(dir, 'child.mjs');
      await build({
        entryPoints: [entry.pathname],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        conditions: ['@finsync/source'],
        plugins: [asShipped],
        // Bundled CommonJS dependencies call `require`; an ES module has none of its own.
        banner: {
          js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
        },
        logLevel: 'error',
      });
      return outfile;
    })();
    bundles.set(entry.href, bundled);
  }
  return bundled;
}

/** The measurement child's bundle (child.ts). */
export function childBundle(): Promise<string> {
  return bundleScript(new URL('./child.ts', import.meta.url));
}
