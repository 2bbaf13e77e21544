import { describe, expect, it } from 'vitest';
import { decodeEntry, encodeEntry } from '../../src/http/response-cache.js';

describe('cache entry encoding', () => {
  it('round-trips a body with newlines and JSON inside, byte for byte', () => {
    const entry = {
      statusCode: 200,
      contentType: 'application/json; charset=utf-8',
      headers: { 'x-extra': 'a\nb' },
      body: '{"text":"line one\\nline two","raw":"\n"}\n\n',
    };
    const encoded = encodeEntry(entry);
    expect(encoded.startsWith('{')).toBe(true);
    expect(decodeEntry(encoded)).toEqual(entry);
  });

  it('treats an entry without the metadata line as a miss', () => {
    expect(decodeEntry('{"statusCode":200,"body":"old layout"}')).toBeNull();
  });
});
