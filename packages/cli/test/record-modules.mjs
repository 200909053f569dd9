// Preload (`node --import`) that appends every module the process loads to the file named by
// WEFT_RECORD_MODULES, one URL a line: ES modules as the loader resolves them (from the hooks
// thread, written at once so none is lost at exit), CommonJS ones from require.cache at exit.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const file = process.env.WEFT_RECORD_MODULES;
if (file) {
  const hooks = `
    import { appendFileSync } from 'node:fs';
    let file;
    export function initialize(data) { file = data.file; }
    export async function resolve(specifier, context, next) {
      const resolved = await next(specifier, context);
      appendFileSync(file, resolved.url + '\\n');
      return resolved;
    }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { file } });
  process.on('exit', () => {
    const cached = Object.keys(createRequire(import.meta.url).cache);
    appendFileSync(file, cached.map((path) => `${pathToFileURL(path).href}\n`).join(''));
  });
}
