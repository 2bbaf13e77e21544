/** Where the code reads a `/` as the start of a regular expression rather than a division. */
const REGEX_PRECEDERS = new Set(['', '(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^']);
const REGEX_KEYWORDS = /(?:^|[^\w$])(?:return|typeof|instanceof|in|of|new|delete|void|throw|case|do|else|yield|await)$/;

export interface StrippedSource {
  /** The source with comments, template literal text and regex bodies blanked (newlines kept, so lines still match). */
  code: string;
  /** A string, template or comment that never closes: the file does not parse. */
  problem: string | null;
}

/**
 * Blanks what a line scanner must not read as code: comments, the text of template literals
 * and the bodies of regular expressions. Quoted strings stay, because import specifiers are
 * quoted strings. Every blanked character becomes a space and newlines stay where they were,
 * so offsets and line numbers of the result are those of the source. A file that does not
 * parse keeps what was stripped up to the problem and the rest as it is.
 */
export function stripSource(source: string, options: { jsx?: boolean } = {}): StrippedSource {
  const out = source.split('');
  const blank = (from: number, to: number) => {
    for (let i = from; i < to; i += 1) if (out[i] !== '\n') out[i] = ' ';
  };
  let last = ''; // last significant code character, to tell regex from division
  let lastWord = '';
  let i = 0;
  const n = source.length;
  // Template literals nest through ${…}; each entry counts the braces open inside one ${.
  const templateDepth: number[] = [];
  while (i < n) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      const stop = end === -1 ? n : end;
      blank(i, stop);
      i = stop;
      continue;
    }
    if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      if (end === -1) {
        blank(i, n);
        return { code: out.join(''), problem: 'unterminated block comment' };
      }
      blank(i, end + 2);
      i = end + 2;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < n && source[j] !== c && source[j] !== '\n') j += source[j] === '\\' ? 2 : 1;
      if (j >= n || source[j] === '\n') {
        // JSX text ("Don't") holds bare apostrophes; elsewhere an open quote means a broken file.
        if (options.jsx) {
          i += 1;
          continue;
        }
        return { code: out.join(''), problem: `unterminated string on line ${source.slice(0, i).split('\n').length}` };
      }
      i = j + 1;
      last = c;
      continue;
    }
    if (c === '`' || (c === '}' && templateDepth.length > 0 && templateDepth[templateDepth.length - 1] === 0)) {
      if (c === '}') templateDepth.pop();
      // Inside template text: blank it until the closing backtick or the next ${.
      let j = i + 1;
      while (j < n && source[j] !== '`' && !(source[j] === '$' && source[j + 1] === '{')) j += source[j] === '\\' ? 2 : 1;
      if (j >= n) return { code: out.join(''), problem: `unterminated template literal on line ${source.slice(0, i).split('\n').length}` };
      blank(i + 1, j);
      if (source[j] === '`') {
        i = j + 1;
        last = '`';
      } else {
        templateDepth.push(0);
        i = j + 2;
        last = '{';
      }
      continue;
    }
    if (c === '/' && (REGEX_PRECEDERS.has(last) || REGEX_KEYWORDS.test(lastWord))) {
      let j = i + 1;
      let inClass = false;
      while (j < n && source[j] !== '\n') {
        const d = source[j]!;
        if (d === '\\') j += 1;
        else if (d === '[') inClass = true;
        else if (d === ']') inClass = false;
        else if (d === '/' && !inClass) break;
        j += 1;
      }
      if (j < n && source[j] === '/') {
        blank(i + 1, j);
        i = j + 1;
        last = '/';
        lastWord = '';
        continue;
      }
    }
    if (templateDepth.length > 0) {
      if (c === '{') templateDepth[templateDepth.length - 1]! += 1;
      else if (c === '}') templateDepth[templateDepth.length - 1]! -= 1;
    }
    if (/[\w$]/.test(c)) {
      lastWord = /[\w$]/.test(source[i - 1] ?? '') ? lastWord + c : c;
      last = 'w';
    } else if (!/\s/.test(c)) {
      last = c;
      lastWord = '';
    }
    i += 1;
  }
  if (templateDepth.length > 0) return { code: out.join(''), problem: 'unterminated template expression' };
  return { code: out.join(''), problem: null };
}
