import { spawnSync } from 'node:child_process';

/** The first of `names` on PATH, as a path; null when none is installed. */
export function binaryOnPath(...names: string[]): string | null {
  for (const name of names) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim() !== '') return found.stdout.trim();
  }
  return null;
}

/** Debian's package installs Alertmanager as `prometheus-alertmanager`; upstream's is `alertmanager`. */
export const alertmanagerBinary = () => binaryOnPath('alertmanager', 'prometheus-alertmanager');
