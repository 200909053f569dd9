import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is in `eslint/`), whatever directory ESLint runs from. */
const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/[\\/]$/, '');

/**
 * `weft/package-boundaries`: the import table (docs/design.md#import-rules), checked per file.
 *
 * Options (one object): `may` — the workspace packages this file may import, as `core` (the
 * package and every subpath it exports) or `sdk/client` (that subpath only), or `'*'` for all;
 * `forbid` — other modules it must not import (`fastify`, `@fastify/*`, `node:*`); `confine` —
 * a folder (from the repository root) its relative imports must stay in; `why` — a sentence
 * added to the `forbid` and `confine` messages.
 *
 * Whatever the options, a file never imports another package's files: `@weft/x/src/...` (or any
 * subpath `packages/x/package.json` does not export), nor a relative path that leaves its own
 * package (`../../other-package/src/...`), nor from outside `packages/` a path into one.
 */

/** `@weft/<name>` and the rest of the specifier. */
const WORKSPACE = /^@weft\/([^/]+)(?:\/(.+))?$/;

/** The subpaths (`client`, `testing`) each package's `package.json` exports, by package root. */
const exportsCache = new Map();

function exportedSubpaths(packageRoot) {
  let subpaths = exportsCache.get(packageRoot);
  if (subpaths) return subpaths;
  subpaths = new Set();
  const manifest = `${packageRoot}/package.json`;
  if (existsSync(manifest)) {
    const exports = JSON.parse(readFileSync(manifest, 'utf8')).exports;
    if (exports && typeof exports === 'object') {
      for (const key of Object.keys(exports)) if (key.startsWith('./')) subpaths.add(key.slice(2));
    }
  }
  exportsCache.set(packageRoot, subpaths);
  return subpaths;
}

/** Whether `specifier` matches a `forbid` entry: a name, or a `prefix*` pattern. */
function matches(specifier, pattern) {
  if (pattern.endsWith('*')) return specifier.startsWith(pattern.slice(0, -1));
  return specifier === pattern || specifier.startsWith(`${pattern}/`);
}

/** `packages/<name>` of a path under the repository root, if it is in one. */
function packageOf(root, path) {
  const parts = relative(root, path).split(sep);
  return parts[0] === 'packages' && parts.length > 2 ? parts[1] : undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: {
      description:
        'Imports between weft packages follow the import rules (docs/design.md#import-rules)',
    },
    schema: [
      {
        type: 'object',
        properties: {
          may: {
            oneOf: [{ const: '*' }, { type: 'array', items: { type: 'string' } }],
          },
          forbid: { type: 'array', items: { type: 'string' } },
          confine: { type: 'string' },
          why: { type: 'string' },
        },
        additionalProperties: false,
      },
    ],
    messages: {
      notAllowed:
        '{{own}} may import {{allowed}} (docs/design.md#import-rules), not "{{specifier}}": arrows between packages never point back.',
      deepImport:
        '"{{specifier}}" reaches into the files of @weft/{{target}}: import what it exports ({{exported}}).',
      relativeEscape:
        '"{{specifier}}" reaches into the files of packages/{{target}}: import @weft/{{target}} (what it exports) instead.',
      leavesPackage:
        '"{{specifier}}" leaves packages/{{own}}: a package imports only its own files and other packages by name.',
      forbidden: '{{own}} must not import "{{specifier}}"{{why}}.',
      confined: '"{{specifier}}" leaves {{confine}}{{why}}.',
    },
  },

  create(context) {
    const options = context.options[0] ?? {};
    const may = options.may ?? '*';
    const forbid = options.forbid ?? [];
    const why = options.why ? `: ${options.why}` : '';
    const root = ROOT;
    const file = context.filename;
    const own = packageOf(root, file);
    const ownName = own ? `@weft/${own}` : relative(root, file);
    const allowed =
      may === '*'
        ? 'any package'
        : may.length === 0
          ? 'no other weft package'
          : may.map((entry) => `@weft/${entry}`).join(', ');

    function check(node, specifier) {
      if (typeof specifier !== 'string') return;
      const report = (messageId, data) =>
        context.report({ node, messageId, data: { specifier, own: ownName, ...data } });

      const workspace = WORKSPACE.exec(specifier);
      if (workspace) {
        const [, target, subpath] = workspace;
        const exported = exportedSubpaths(resolve(root, 'packages', target));
        if (subpath !== undefined && !exported.has(subpath)) {
          const list = [`@weft/${target}`, ...[...exported].map((s) => `@weft/${target}/${s}`)];
          return report('deepImport', { target, exported: list.join(', ') });
        }
        if (target === own || may === '*') return;
        const entry = subpath === undefined ? target : `${target}/${subpath}`;
        if (!may.includes(target) && !may.includes(entry)) return report('notAllowed', { allowed });
        return;
      }

      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        const targetPackage = packageOf(root, target);
        if (targetPackage !== undefined && targetPackage !== own) {
          return report('relativeEscape', { target: targetPackage });
        }
        if (own !== undefined && targetPackage === undefined) {
          return report('leavesPackage', { own });
        }
        if (options.confine) {
          const base = resolve(root, options.confine);
          if (target !== base && !target.startsWith(`${base}${sep}`)) {
            return report('confined', { confine: options.confine, why });
          }
        }
        return;
      }

      if (forbid.some((pattern) => matches(specifier, pattern))) report('forbidden', { why });
    }

    const source = (node) => check(node.source, node.source?.value);
    return {
      ImportDeclaration: source,
      ExportAllDeclaration: source,
      ExportNamedDeclaration: (node) => node.source && source(node),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
      TSImportType: (node) => {
        const argument = node.argument?.literal ?? node.argument;
        if (argument?.type === 'Literal') check(node, argument.value);
      },
      TSExternalModuleReference: (node) =>
        node.expression.type === 'Literal' && check(node, node.expression.value),
      CallExpression: (node) => {
        const [first] = node.arguments;
        if (
          node.callee.type === 'Identifier' &&
          node.callee.name === 'require' &&
          first?.type === 'Literal'
        ) {
          check(node, first.value);
        }
      },
    };
  },
};

/** The local ESLint plugin of this repository. */
export default { meta: { name: 'weft' }, rules: { 'package-boundaries': rule } };
