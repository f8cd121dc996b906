// Module hooks that let a child process run the TypeScript sources directly (Node 20 cannot),
// so tests of the real CLI process need no build step: each .ts file is transpiled on import
// (TypeScript's transpileModule: no type check, that is `npm run typecheck`'s job) and the
// sources' `.js` import specifiers resolve to their `.ts` files. Transpiled text is cached by
// content hash under node_modules/.cache, so only changed files cost anything after the first run.
// Registered by typescript-loader.mjs: `node --import ./test/typescript-loader.mjs src/cli/main.ts`.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CACHE = fileURLToPath(new URL('../node_modules/.cache/gridquote-typescript/', import.meta.url));
const COMPILER = JSON.parse(
  await readFile(new URL('../node_modules/typescript/package.json', import.meta.url), 'utf8'),
).version;
/** Loaded only on a cache miss: it is most of a cold start. */
let typescript;

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    const relative = specifier.startsWith('./') || specifier.startsWith('../');
    if (!relative || !specifier.endsWith('.js') || error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    return next(`${specifier.slice(0, -3)}.ts`, context);
  }
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const fileName = fileURLToPath(url);
  const source = await readFile(fileName, 'utf8');
  return { format: 'module', source: await transpiled(fileName, source), shortCircuit: true };
}

async function transpiled(fileName, source) {
  const key = createHash('sha256').update(`${COMPILER}\0${source}`).digest('hex');
  const cached = join(CACHE, `${key}.js`);
  try {
    return await readFile(cached, 'utf8');
  } catch {
    typescript ??= (await import('typescript')).default;
    const { outputText } = typescript.transpileModule(source, {
      fileName,
      compilerOptions: {
        module: typescript.ModuleKind.ESNext,
        target: typescript.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
    });
    // Written whole, then renamed: a concurrent run never reads half a file.
    await mkdir(CACHE, { recursive: true });
    const partial = `${cached}.${process.pid}.tmp`;
    await writeFile(partial, outputText);
    await rename(partial, cached);
    return outputText;
  }
}
