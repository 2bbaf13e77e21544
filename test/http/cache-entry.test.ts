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
    expect(encoded[0]).toBe('{'.charCodeAt(0));
    expect(decodeEntry(encoded)).toEqual({ ...entry, body: Buffer.from(entry.body) });
  });

  it('keeps a body outside ASCII byte for byte, and a Buffer body as it is', () => {
    const body = '{"name":"café ☕ 𝄞"}';
    const fromText = encodeEntry({ statusCode: 200, contentType: 'application/json', headers: {}, body });
    const fromBytes = encodeEntry({ statusCode: 200, contentType: 'application/json', headers: {}, body: Buffer.from(body) });
    expect(fromText.equals(fromBytes)).toBe(true);
    expect(decodeEntry(fromText)?.body.toString()).toBe(body);
  });

  it('treats an entry without the metadata line as a miss', () => {
    expect(decodeEntry(Buffer.from('{"statusCode":200,"body":"old layout"}'))).toBeNull();
  });
});
