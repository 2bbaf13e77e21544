/** A curl command line read back as the request it makes. */
export interface CurlRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/**
 * Splits a shell command into words the way a POSIX shell does for the quoting READMEs use:
 * single quotes are literal, double quotes allow `\"` and `\\`, a backslash before a newline
 * joins the lines. Variables and substitutions are not expanded; a command that needs them is
 * not an example a reader can paste.
 */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let i = 0;
  const append = (text: string) => (word = (word ?? '') + text);
  while (i < command.length) {
    const ch = command[i]!;
    if (ch === '\\' && command[i + 1] === '\n') {
      i += 2;
    } else if (/\s/.test(ch)) {
      if (word !== null) words.push(word);
      word = null;
      i += 1;
    } else if (ch === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated single quote in: ${command}`);
      append(command.slice(i + 1, end));
      i = end + 1;
    } else if (ch === '"') {
      let j = i + 1;
      let text = '';
      while (j < command.length && command[j] !== '"') {
        if (command[j] === '\\' && /["\\$`]/.test(command[j + 1] ?? '')) j += 1;
        text += command[j];
        j += 1;
      }
      if (j >= command.length) throw new Error(`unterminated double quote in: ${command}`);
      append(text);
      i = j + 1;
    } else if (ch === '\\') {
      append(command[i + 1] ?? '');
      i += 2;
    } else if (ch === '$' || ch === '`') {
      throw new Error(`shell expansion is not supported in an example: ${command}`);
    } else {
      append(ch);
      i += 1;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/**
 * The request a `curl` command makes, for the options READMEs use: -H/--header, -d/--data
 * (which makes it a POST, as curl does), -X/--request and one URL. Any other option is an
 * error, so an example using one fails loudly instead of being run differently than written.
 */
export function parseCurl(command: string): CurlRequest {
  const [program, ...args] = shellWords(command);
  if (program !== 'curl') throw new Error(`not a curl command: ${command}`);
  const headers: Record<string, string> = {};
  let method: string | null = null;
  let body: string | undefined;
  let url: string | null = null;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    const value = () => {
      const next = args[i + 1];
      if (next === undefined) throw new Error(`${arg} needs a value in: ${command}`);
      i += 1;
      return next;
    };
    if (arg === '-H' || arg === '--header') {
      const header = value();
      const colon = header.indexOf(':');
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    } else if (arg === '-d' || arg === '--data' || arg === '--data-raw') {
      body = value();
    } else if (arg === '-X' || arg === '--request') {
      method = value();
    } else if (arg.startsWith('-')) {
      throw new Error(`unsupported curl option ${arg} in: ${command}`);
    } else if (url === null) {
      url = arg;
    } else {
      throw new Error(`more than one URL in: ${command}`);
    }
  }
  if (url === null) throw new Error(`no URL in: ${command}`);
  if (body !== undefined && headers['content-type'] === undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  return { method: method ?? (body === undefined ? 'GET' : 'POST'), url, headers, body };
}

/**
 * Every shell command of the fenced code blocks of a Markdown document, with continuation lines
 * joined and `#` comment lines left out.
 */
export function shellCommandsOf(markdown: string): string[] {
  const commands: string[] = [];
  for (const block of markdown.matchAll(/^```(?:sh|bash|shell|console)?\n([\s\S]*?)^```/gm)) {
    const lines = block[1]!.split('\n');
    let current = '';
    for (const line of lines) {
      if (current === '' && (line.trim() === '' || line.trim().startsWith('#'))) continue;
      current += current === '' ? line.trim() : `\n${line}`;
      if (!line.endsWith('\\')) {
        commands.push(current);
        current = '';
      }
    }
  }
  return commands;
}
