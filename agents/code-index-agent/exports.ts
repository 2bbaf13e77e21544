export type SymbolKind =
  | 'function'
  | 'class'
  | 'const'
  | 'let'
  | 'var'
  | 'type'
  | 'interface'
  | 'enum'
  | 'namespace'
  | 'default'
  | 're-export'
  | 're-export-all'
  | 'commonjs'
  | 'binding';

export interface ExportedSymbol {
  /** The name importers use: `default` for the default export, `*` for `export * from`. */
  name: string;
  kind: SymbolKind;
  line: number;
  /** For defaults: what is exported (`function render`, `class Store`, `expression`). */
  target?: string;
  /** For re-exports: the module specifier they come from. */
  from?: string;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*/;

function lineAt(code: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i += 1) if (code.charCodeAt(i) === 10) line += 1;
  return line;
}

/**
 * The names declared by `const a = 1, { b, c: d } = x, [e, ...f] = y` (the text after the
 * keyword up to the end of the statement). Commas only separate declarators at bracket depth
 * zero; in a type annotation `<…>` counts as brackets too, so `Map<string, number>` stays whole.
 */
export function declaredNames(text: string): string[] {
  const names: string[] = [];
  let i = 0;
  const n = text.length;
  const skipSpace = () => {
    while (i < n && /\s/.test(text[i]!)) i += 1;
  };
  const bindingNames = (pattern: string): string[] => {
    // In `{ a, b: c, ...d }` the binding is after the colon; in `[a, , b]` each element is one.
    const found: string[] = [];
    for (const part of pattern.slice(1, -1).split(',')) {
      const target = part.includes(':') ? part.slice(part.indexOf(':') + 1) : part;
      const bare = target.replace(/^\s*\.\.\./, '').replace(/=.*$/s, '').trim();
      if (bare.startsWith('{') || bare.startsWith('[')) found.push(...bindingNames(bare));
      else if (IDENTIFIER.test(bare)) found.push(IDENTIFIER.exec(bare)![0]);
    }
    return found;
  };
  while (i < n) {
    skipSpace();
    const open = text[i];
    if (open === '{' || open === '[') {
      const close = open === '{' ? '}' : ']';
      let depth = 0;
      const start = i;
      for (; i < n; i += 1) {
        if (text[i] === open) depth += 1;
        else if (text[i] === close && --depth === 0) break;
      }
      names.push(...bindingNames(text.slice(start, i + 1)));
      i += 1;
    } else {
      const match = IDENTIFIER.exec(text.slice(i));
      if (!match) break;
      names.push(match[0]);
      i += match[0].length;
    }
    // Skip the type annotation and initializer up to the next top-level comma.
    let depth = 0;
    let inType = false;
    for (; i < n; i += 1) {
      const c = text[i]!;
      if (c === '"' || c === "'") {
        const end = text.indexOf(c, i + 1);
        i = end === -1 ? n : end;
        continue;
      }
      if (depth === 0 && c === ':') inType = true;
      if (c === '=' && text[i + 1] !== '>' && depth === 0) inType = false;
      if (c === '(' || c === '[' || c === '{' || (inType && c === '<')) depth += 1;
      else if (c === ')' || c === ']' || c === '}' || (inType && c === '>' && text[i - 1] !== '=')) depth -= 1;
      else if (c === ',' && depth === 0) break;
      else if (c === ';' && depth === 0) return names;
    }
    i += 1;
  }
  return names;
}

/**
 * Where a `const`/`let`/`var` statement starting at `from` ends: a `;` at bracket depth zero,
 * or a line break at depth zero when neither side of it continues the expression.
 */
function statementEnd(code: string, from: number): number {
  let depth = 0;
  for (let i = from; i < code.length; i += 1) {
    const c = code[i]!;
    if (c === '"' || c === "'") {
      const end = code.indexOf(c, i + 1);
      if (end !== -1 && !code.slice(i, end).includes('\n')) i = end;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth += 1;
    else if (c === ')' || c === ']' || c === '}') depth -= 1;
    else if (depth <= 0 && c === ';') return i;
    else if (depth <= 0 && c === '\n') {
      const before = code.slice(from, i).trimEnd().slice(-1);
      const after = code.slice(i + 1).trimStart().charAt(0);
      if (!/[,=+\-*/?:|&(<>.]/.test(before) && !/[.?:+\-*/|&,=]/.test(after)) return i;
    }
  }
  return code.length;
}

/** Local declarations by name, to give `export { a }` the kind `a` was declared with. */
function localKinds(code: string): Map<string, SymbolKind> {
  const kinds = new Map<string, SymbolKind>();
  const declaration = /^[ \t]*(?:export\s+)?(?:declare\s+)?(?:default\s+)?(?:(?:async\s+)?function\*?|(?:abstract\s+)?class|const\s+enum|enum|interface|type|namespace|module|const|let|var)\s+[A-Za-z_$][\w$]*/gm;
  for (const match of code.matchAll(declaration)) {
    const words = match[0].trim().split(/\s+/);
    const name = words[words.length - 1]!;
    const keyword = words.find((w) => /^(?:function\*?|class|enum|interface|type|namespace|module|const|let|var)$/.test(w))!;
    const kind = (keyword.startsWith('function') ? 'function' : keyword === 'module' ? 'namespace' : words.includes('enum') ? 'enum' : keyword) as SymbolKind;
    if (!kinds.has(name)) kinds.set(name, kind);
  }
  return kinds;
}

/**
 * The exported symbols of one stripped source file (see strip-source.ts): ES module export
 * declarations of every form, TypeScript type exports, and CommonJS `exports.x =` assignments.
 */
export function findExports(code: string): ExportedSymbol[] {
  const symbols: ExportedSymbol[] = [];
  const add = (symbol: ExportedSymbol) => {
    if (!symbols.some((s) => s.name === symbol.name && s.kind === symbol.kind && s.from === symbol.from)) symbols.push(symbol);
  };
  const locals = localKinds(code);
  const statement = /^[ \t]*export\s+(?:declare\s+)?/gm;
  for (const match of code.matchAll(statement)) {
    const start = match.index + match[0].length;
    const rest = code.slice(start, start + 2000);
    const line = lineAt(code, start);
    let m: RegExpExecArray | null;
    if ((m = /^default\s+(?:(async\s+)?function\*?\s*([A-Za-z_$][\w$]*)?|(?:abstract\s+)?class\s*([A-Za-z_$][\w$]*)?)/.exec(rest))) {
      const kind = m[0].includes('class') ? 'class' : 'function';
      const name = m[2] ?? m[3];
      add({ name: 'default', kind: 'default', line, target: name ? `${kind} ${name}` : kind });
    } else if ((m = /^default\s+([A-Za-z_$][\w$]*)\s*;?\s*$/m.exec(rest)) && !/^default\s+(?:async|function|class)\b/.test(rest)) {
      add({ name: 'default', kind: 'default', line, target: locals.has(m[1]!) ? `${locals.get(m[1]!)} ${m[1]}` : m[1]! });
    } else if (/^default\b/.test(rest)) {
      add({ name: 'default', kind: 'default', line, target: 'expression' });
    } else if ((m = /^(?:async\s+)?function\*?\s*([A-Za-z_$][\w$]*)/.exec(rest))) {
      add({ name: m[1]!, kind: 'function', line });
    } else if ((m = /^(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/.exec(rest))) {
      add({ name: m[1]!, kind: 'class', line });
    } else if ((m = /^(?:const\s+)?enum\s+([A-Za-z_$][\w$]*)/.exec(rest))) {
      add({ name: m[1]!, kind: 'enum', line });
    } else if ((m = /^interface\s+([A-Za-z_$][\w$]*)/.exec(rest))) {
      add({ name: m[1]!, kind: 'interface', line });
    } else if ((m = /^(?:namespace|module)\s+([A-Za-z_$][\w$.]*)/.exec(rest))) {
      add({ name: m[1]!, kind: 'namespace', line });
    } else if ((m = /^type\s+([A-Za-z_$][\w$]*)\s*(?:<[^=]*>)?\s*=/.exec(rest))) {
      add({ name: m[1]!, kind: 'type', line });
    } else if ((m = /^(const|let|var|using)\s+/.exec(rest))) {
      const body = code.slice(start + m[0].length, statementEnd(code, start + m[0].length));
      const kind = (m[1] === 'using' ? 'const' : m[1]) as SymbolKind;
      for (const name of declaredNames(body)) add({ name, kind, line });
    } else if ((m = /^\*\s*(?:as\s+([A-Za-z_$][\w$]*)\s*)?from\s*(['"])(.+?)\2/.exec(rest))) {
      add(m[1] ? { name: m[1], kind: 're-export', line, from: m[3]! } : { name: '*', kind: 're-export-all', line, from: m[3]! });
    } else if ((m = /^(?:type\s+)?\{([^}]*)\}\s*(?:from\s*(['"])(.+?)\2)?/.exec(rest))) {
      const from = m[3];
      for (const item of m[1]!.split(',')) {
        const parts = item.replace(/^\s*type\s+/, '').trim().split(/\s+as\s+/);
        const local = parts[0]?.trim();
        const exported = (parts[1] ?? parts[0])?.trim();
        if (!local || !exported) continue;
        if (from !== undefined) add({ name: exported, kind: 're-export', line, from });
        else if (exported === 'default') add({ name: 'default', kind: 'default', line, target: locals.has(local) ? `${locals.get(local)} ${local}` : local });
        else add({ name: exported, kind: locals.get(local) ?? 'binding', line });
      }
    } else if (/^=\s*/.test(rest)) {
      add({ name: 'default', kind: 'default', line, target: 'export =' });
    }
  }
  for (const match of code.matchAll(/^[ \t]*(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=(?!=)/gm)) {
    add({ name: match[1]!, kind: 'commonjs', line: lineAt(code, match.index) });
  }
  for (const match of code.matchAll(/^[ \t]*module\.exports\s*=(?!=)/gm)) {
    add({ name: 'default', kind: 'default', line: lineAt(code, match.index), target: 'module.exports' });
  }
  return symbols;
}
