import { basename, extname } from 'node:path';

/** Source languages where a bare identifier after `=` is a variable, not a literal value. */
const CODE_EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.tsx', '.jsx', '.py', '.rb', '.go', '.java', '.kt', '.cs', '.php', '.rs', '.swift', '.vue', '.svelte']);
/** Where the dangerous-code rules look: JavaScript and TypeScript sources and HTML pages. */
const SCRIPT_EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.tsx', '.jsx', '.vue', '.svelte', '.html', '.htm']);
/** Shell-like files and manifests where `chmod 777` or a TLS override takes effect. */
const SHELL_LIKE = /(?:\.(?:sh|bash|zsh|ps1|ya?ml|json|toml|env|cfg|conf|ini)$|^Dockerfile|^Makefile$|^\.env)/i;
/** Lockfiles record integrity hashes, which are random by design. */
const LOCKFILES = new Set(['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'bun.lock', 'Cargo.lock', 'composer.lock', 'poetry.lock', 'Gemfile.lock', 'go.sum']);

export function isCodeFile(path: string): boolean {
  return CODE_EXTENSIONS.has(extname(path).toLowerCase());
}

export function isScriptFile(path: string): boolean {
  return SCRIPT_EXTENSIONS.has(extname(path).toLowerCase());
}

export function isShellLike(path: string): boolean {
  return SHELL_LIKE.test(basename(path));
}

export function isLockfile(path: string): boolean {
  return LOCKFILES.has(basename(path));
}

/** `.env`, `.env.production`… but not the templates meant to be committed. */
export function isEnvFile(path: string): boolean {
  const name = basename(path);
  return /^\.env(?:\..+)?$/.test(name) && !/\.(?:example|sample|template|dist)$/.test(name);
}

/** Key material by name: SSH identities, PEM/PKCS files. */
export function isKeyFile(path: string): boolean {
  const name = basename(path);
  return /^id_(?:rsa|dsa|ecdsa|ed25519)$/.test(name) || /\.(?:pem|key|p12|pfx|jks|keystore)$/i.test(name);
}

/** Examples, fixtures and tests: a secret there is less likely to be live. */
export function isNonProductionPath(path: string): boolean {
  return /(?:^|\/)(?:test|tests|__tests__|spec|fixtures?|examples?|samples?|docs?|mocks?)(?:\/|$)|\.(?:example|sample|template)$|\.(?:test|spec)\.[a-z]+$/i.test(path);
}

/** Files the service or its deployment reads at run time: env files, config, container and npm settings. */
export function isDeployedConfig(path: string): boolean {
  const name = basename(path);
  return (
    isEnvFile(path) ||
    /^(?:\.npmrc|\.yarnrc(?:\.yml)?|\.pypirc|\.netrc|\.dockercfg|Dockerfile.*|docker-compose.*\.ya?ml|compose\.ya?ml|.*\.(?:ya?ml|toml|ini|conf|cfg|properties))$/i.test(name) ||
    /(?:^|\/)config\//i.test(path)
  );
}
