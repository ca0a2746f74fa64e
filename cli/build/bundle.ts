/**
 * The command line as a few bundled files (`npm run build` runs this after tsc): the
 * installed `pagecheck` loaded some 750 modules one by one (600 of them `effect`'s, most
 * of which no command uses), and that loading was most of a tiny check's 0.6 s. esbuild
 * writes `dist/cli/bin.js` and `dist/cli/worker.js` over tsc's, with what they share and
 * each command (loaded when it runs) in chunks beside them, tree-shaken. tsc's output
 * stays for the library and for the parallel checker's workers, which load
 * `dist/checker/parallel-worker.js` and `dist/spec/checked-model.js` by path.
 *
 * A source file that reads `import.meta.url` means its own place in tsc's layout; in a
 * chunk of `dist/cli/` it is rewritten to that place, so that the paths it builds (the
 * worker, the model module, the package's root) are what they were.
 *
 * Run as `tsx cli/build/bundle.ts [OUTDIR]` (default `dist`).
 */
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

/** The repository's root. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Packages left to node_modules: z3's WebAssembly loads files beside it; the TypeScript compiler is a development dependency. */
const EXTERNAL = ['z3-solver', 'typescript'];

/** Rewrites `import.meta.url` in the repository's own sources to the URL of the file tsc writes for them under `outdir`. */
function tscLayout(outdir: string): Plugin {
  return {
    name: 'tsc-layout-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        const own = relative(ROOT, args.path);
        if (own.startsWith('..') || own.includes('node_modules') || !source.includes('import.meta.url')) return undefined;
        const compiled = resolve(outdir, own.replace(/\.ts$/, '.js'));
        const fromCli = relative(resolve(outdir, 'cli'), compiled).replace(/\\/g, '/');
        const url = `new URL(${JSON.stringify(fromCli.startsWith('.') ? fromCli : `./${fromCli}`)}, import.meta.url).href`;
        return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
      });
    },
  };
}

/** Bundles the command line into `outdir/cli`; returns the files written. */
export async function bundleCli(outdir: string): Promise<string[]> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ['cli/bin.ts', 'cli/worker.ts'],
    outbase: '.',
    outdir,
    // Every output in dist/cli/, where the rewritten import.meta.url is taken from.
    chunkNames: 'cli/bundle-[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    // Identifiers keep their names (stack traces, error names); renaming them saved no measurable time.
    minifyWhitespace: true,
    minifySyntax: true,
    // The CommonJS packages bundled (commander, cli-progress) require Node's own modules.
    banner: { js: "import { createRequire as __pagecheckRequire } from 'node:module'; const require = __pagecheckRequire(import.meta.url);" },
    plugins: [tscLayout(resolve(ROOT, outdir))],
    metafile: true,
    logLevel: 'warning',
  });
  return Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js'));
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const files = await bundleCli(process.argv[2] ?? 'dist');
  // On stderr: npm runs this in `prepare`, and `npm pack --json` must print nothing but its JSON on stdout.
  process.stderr.write(`bundled the command line: ${files.length} files in ${process.argv[2] ?? 'dist'}/cli\n`);
}
