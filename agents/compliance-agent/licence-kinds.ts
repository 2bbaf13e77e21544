/** How a licence binds the project that uses the code under it. */
export type LicenceCategory = 'permissive' | 'weak-copyleft' | 'strong-copyleft' | 'proprietary' | 'unknown';

const STRONG_COPYLEFT = /^(?:A?GPL-|SSPL-|OSL-|EUPL-|CC-BY-SA-|CC-BY-NC|RPL-|Sleepycat)/i;
const WEAK_COPYLEFT = /^(?:LGPL-|MPL-|EPL-|CDDL-|CPL-|MS-RL|CECILL-C|LGPLLR)/i;
const PERMISSIVE = /^(?:MIT(?:-0)?|ISC|0BSD|BSD-[0-9]-Clause(?:-[A-Za-z]+)?|BSD|Apache-[12]\.[01]|Unlicense|CC0-1\.0|CC-BY-[34]\.0|Zlib|BlueOak-1\.0\.0|Python-2\.0|PSF-2\.0|WTFPL|X11|BSL-1\.0|Artistic-2\.0|PostgreSQL|NCSA|MIT-CMU|Unicode-[\w.-]+|W3C)$/i;
/** Weaker to stronger: a choice (OR) takes the weakest, a combination (AND) the strongest. */
const STRENGTH: Record<LicenceCategory, number> = { permissive: 0, 'weak-copyleft': 1, 'strong-copyleft': 2, proprietary: 3, unknown: 4 };

function categoryOfId(id: string): LicenceCategory {
  const bare = id.replace(/\+$/, '').replace(/\s+WITH\s+.*$/i, '').trim();
  if (/^(?:UNLICENSED|SEE LICEN[CS]E IN\b.*|Commercial|Proprietary)$/i.test(bare)) return 'proprietary';
  if (STRONG_COPYLEFT.test(bare)) return 'strong-copyleft';
  if (WEAK_COPYLEFT.test(bare)) return 'weak-copyleft';
  if (PERMISSIVE.test(bare)) return 'permissive';
  return 'unknown';
}

/**
 * The category of an SPDX expression such as `MIT`, `(MIT OR GPL-3.0-only)` or
 * `Apache-2.0 AND LGPL-2.1-only`. OR is the licensee's choice, so the most permissive option
 * decides; AND binds both, so the most restrictive one does.
 */
export function categoryOf(expression: string): LicenceCategory {
  const text = expression.trim().replace(/^\((.*)\)$/, '$1');
  if (/^SEE LICEN[CS]E IN\b/i.test(text)) return 'proprietary';
  const choices = text.split(/\s+OR\s+/i).map((choice) =>
    choice
      .replace(/[()]/g, '')
      .split(/\s+AND\s+/i)
      .map(categoryOfId)
      .reduce((a, b) => (STRENGTH[a] >= STRENGTH[b] ? a : b)),
  );
  return choices.reduce((a, b) => (STRENGTH[a] <= STRENGTH[b] ? a : b));
}

/** The licence a package.json declares: `license` (string or legacy object) or legacy `licenses[]`. */
export function declaredLicence(manifest: Record<string, unknown>): string | null {
  const { license, licenses } = manifest;
  if (typeof license === 'string' && license.trim() !== '') return license.trim();
  if (typeof license === 'object' && license !== null && typeof (license as { type?: unknown }).type === 'string') {
    return (license as { type: string }).type;
  }
  if (Array.isArray(licenses)) {
    const types = licenses.map((l) => (typeof l === 'string' ? l : (l as { type?: unknown })?.type)).filter((t): t is string => typeof t === 'string');
    if (types.length > 0) return types.length === 1 ? types[0]! : `(${types.join(' OR ')})`;
  }
  return null;
}
