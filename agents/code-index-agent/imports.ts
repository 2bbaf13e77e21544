export type ImportKind = 'static' | 'side-effect' | 'dynamic' | 'require' | 're-export';

export interface ImportReference {
  specifier: string;
  kind: ImportKind;
  line: number;
}

function lineAt(code: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i += 1) if (code.charCodeAt(i) === 10) line += 1;
  return line;
}

/** `import x from 'm'`, `import { a,\n b } from 'm'`, `import type { T } from 'm'`. */
const STATIC_IMPORT = /(?:^|[;}\n])[ \t]*import\s+(?!\()(?:type\s+)?[\w$*{},\s]*?\bfrom\s*(['"])([^'"\n]+)\1/g;
/** `import 'polyfill'`. */
const SIDE_EFFECT_IMPORT = /(?:^|[;}\n])[ \t]*import\s*(['"])([^'"\n]+)\1/g;
/** `export { a } from 'm'`, `export * from 'm'`, `export * as ns from 'm'`. */
const RE_EXPORT = /(?:^|[;}\n])[ \t]*export\s+(?:type\s+)?(?:\*(?:\s+as\s+[\w$]+)?|\{[^}]*\})\s*from\s*(['"])([^'"\n]+)\1/g;
/** `import('m')` with a literal specifier; computed specifiers cannot be resolved statically. */
const DYNAMIC_IMPORT = /(?<![\w$.])import\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g;
/** `require('m')`, including TypeScript's `import x = require('m')`. */
const REQUIRE = /(?<![\w$.])require\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g;

/** Every module a stripped source file (see strip-source.ts) imports, in source order. */
export function findImports(code: string): ImportReference[] {
  const found: Array<ImportReference & { offset: number }> = [];
  const collect = (pattern: RegExp, kind: ImportKind) => {
    for (const match of code.matchAll(pattern)) {
      const offset = match.index + match[0].length;
      found.push({ specifier: match[2]!, kind, line: lineAt(code, offset), offset });
    }
  };
  collect(STATIC_IMPORT, 'static');
  collect(SIDE_EFFECT_IMPORT, 'side-effect');
  collect(RE_EXPORT, 're-export');
  collect(DYNAMIC_IMPORT, 'dynamic');
  collect(REQUIRE, 'require');
  return found.sort((a, b) => a.offset - b.offset).map(({ specifier, kind, line }) => ({ specifier, kind, line }));
}
