/**
 * Identifies a licence by its text, for LICENSE/COPYING files that carry no SPDX tag.
 * Each licence is recognized by sentences that only it contains; more specific licences are
 * tested before the ones whose wording they share (LGPL before GPL, 0BSD before ISC).
 */
interface TextSignature {
  id: (text: string) => string;
  matches: (text: string) => boolean;
}

const has = (text: string, ...phrases: string[]) => phrases.every((p) => text.includes(p));
/** The GPL family texts end with the advice to license "either version N … or any later version". */
const laterSuffix = (text: string) => (text.includes('or (at your option) any later version') ? '-or-later' : '-only');

const SIGNATURES: TextSignature[] = [
  { matches: (t) => has(t, 'gnu affero general public license', 'version 3'), id: (t) => `AGPL-3.0${laterSuffix(t)}` },
  { matches: (t) => has(t, 'gnu lesser general public license', 'version 3'), id: (t) => `LGPL-3.0${laterSuffix(t)}` },
  { matches: (t) => has(t, 'gnu lesser general public license', 'version 2.1'), id: (t) => `LGPL-2.1${laterSuffix(t)}` },
  { matches: (t) => has(t, 'gnu library general public license', 'version 2'), id: (t) => `LGPL-2.0${laterSuffix(t)}` },
  { matches: (t) => has(t, 'gnu general public license', 'version 3'), id: (t) => `GPL-3.0${laterSuffix(t)}` },
  { matches: (t) => has(t, 'gnu general public license', 'version 2'), id: (t) => `GPL-2.0${laterSuffix(t)}` },
  { matches: (t) => has(t, 'mozilla public license') && /version 2\.0|, v\. 2\.0/.test(t), id: () => 'MPL-2.0' },
  { matches: (t) => has(t, 'apache license', 'version 2.0'), id: () => 'Apache-2.0' },
  { matches: (t) => has(t, 'eclipse public license', '2.0'), id: () => 'EPL-2.0' },
  { matches: (t) => has(t, 'this is free and unencumbered software released into the public domain'), id: () => 'Unlicense' },
  { matches: (t) => has(t, 'cc0 1.0 universal'), id: () => 'CC0-1.0' },
  {
    matches: (t) => /permission to use, copy, modify, and\/?o?r? distribute this software for any purpose with or without fee is hereby granted/.test(t),
    // ISC asks for the notice to be kept; the zero-clause BSD text drops that condition.
    id: (t) => (t.includes('copyright notice and this permission notice appear in all copies') ? 'ISC' : '0BSD'),
  },
  { matches: (t) => has(t, 'permission is hereby granted, free of charge, to any person obtaining a copy'), id: () => 'MIT' },
  {
    matches: (t) => has(t, 'redistribution and use in source and binary forms'),
    id: (t) => (t.includes('all advertising materials') ? 'BSD-4-Clause' : /neither the name|the names? of (?:the )?(?:copyright holder|its contributors|the author)/.test(t) ? 'BSD-3-Clause' : 'BSD-2-Clause'),
  },
];

/** Whitespace and line wrapping vary between copies of the same licence; the words do not. */
function normalize(text: string): string {
  return text.toLowerCase().replace(/[“”]/g, '"').replace(/\s+/g, ' ');
}

/** The SPDX id of the licence `text` holds, or null when it matches none this lane knows. */
export function identifyLicenceText(text: string): string | null {
  const normalized = normalize(text);
  const tagged = /spdx-license-identifier:\s*([\w.+-]+(?:\s+(?:or|and|with)\s+[\w.+-]+)*)/i.exec(text);
  if (tagged) return tagged[1]!;
  return SIGNATURES.find((s) => s.matches(normalized))?.id(normalized) ?? null;
}
