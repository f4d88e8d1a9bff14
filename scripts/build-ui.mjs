// Builds the web page from src/ui into dist/ui: one script and one stylesheet bundled from the npm
// packages they import (sigma, graphology, PatternFly, with PatternFly's fonts), named by content
// hash under assets/, and an index.html that names them. Run by `npm run build` and `prepare`.
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function buildUi({ outDir = join(ROOT, 'dist', 'ui'), minify = true } = {}) {
  const assets = join(outDir, 'assets');
  // Earlier builds' files stay a day: a server started before this build still serves the page it read.
  await mkdir(assets, { recursive: true });
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  for (const file of await readdir(assets))
    if ((await stat(join(assets, file))).mtimeMs < dayAgo) await rm(join(assets, file), { force: true });
  const result = await esbuild.build({
    entryPoints: { app: join(ROOT, 'src/ui/main.ts'), style: join(ROOT, 'src/ui/app.css') },
    outdir: assets,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    minify,
    sourcemap: 'linked',
    format: 'esm',
    target: ['chrome110', 'firefox110', 'safari16'],
    loader: { '.woff2': 'file', '.woff': 'file', '.svg': 'file' },
    metafile: true,
    logLevel: 'warning',
    absWorkingDir: ROOT,
  });
  const outputs = Object.entries(result.metafile.outputs);
  const named = (entry) => {
    const found = outputs.find(([, o]) => o.entryPoint?.endsWith(entry));
    if (!found) throw new Error(`build-ui: no output for ${entry}`);
    return basename(found[0]);
  };
  // Compressed copies, which the server sends to clients that accept them (@fastify/static preCompressed).
  for (const [file] of outputs.filter(([f]) => /\.(js|css)$/.test(f))) {
    const bytes = await readFile(join(ROOT, file));
    await writeFile(join(ROOT, `${file}.br`), brotliCompressSync(bytes));
    await writeFile(join(ROOT, `${file}.gz`), gzipSync(bytes, { level: 9 }));
  }
  const template = await readFile(join(ROOT, 'src/ui/index.html'), 'utf8');
  const page = template.replace('{{script}}', named('main.ts')).replace('{{style}}', named('app.css'));
  await writeFile(join(outDir, 'index.html'), page);
  return { outDir, bytes: Object.fromEntries(outputs.map(([f, o]) => [basename(f), o.bytes])) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { outDir, bytes } = await buildUi();
  const js = Object.entries(bytes).filter(([f]) => /\.(js|css)$/.test(f));
  console.log(`web page built in ${outDir}: ${js.map(([f, b]) => `${f} ${(b / 1024).toFixed(0)} KiB`).join(', ')}`);
}
