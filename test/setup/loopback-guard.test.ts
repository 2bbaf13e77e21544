import dgram from 'node:dgram';
import dns from 'node:dns';
import { createServer, get, request, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GUARD_ERROR_CODE, takeViolations } from '../support/loopback-guard.mjs';

// The guard is installed by the setup file every test file runs with (vitest.config.ts). These
// tests trip it on purpose, so each one takes the refusals it caused before the setup's check
// (which would fail the test) runs, and asserts on them itself.
const PUBLIC = '93.184.216.34';

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  servers = [];
});

async function serve(host: string): Promise<number> {
  const server = createServer((_req, res) => res.end('here'));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

function failure(socket: net.Socket): Promise<NodeJS.ErrnoException> {
  return new Promise((resolve, reject) => {
    socket.once('error', resolve);
    socket.once('connect', () => reject(new Error('connected')));
  });
}

function body(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve(text));
    }).on('error', reject);
  });
}

describe('loopback guard', () => {
  it('refuses a TCP connection to a public address without opening a socket, and records it', async () => {
    const socket = net.connect(80, PUBLIC);
    const error = await failure(socket);
    expect(error).toMatchObject({ code: GUARD_ERROR_CODE, message: expect.stringContaining(`${PUBLIC}:80`) });
    // The guard answered before Node's connect ran: no handle was ever made for the socket.
    expect((socket as unknown as { _handle: unknown })._handle).toBeNull();
    const refused = takeViolations();
    expect(refused).toEqual([expect.objectContaining({ kind: 'TCP', target: `${PUBLIC}:80` })]);
    expect(refused[0]!.stack).toContain('loopback-guard.test.ts');
  });

  it('refuses fetch and http to a public address, and a name that resolves to one', async () => {
    await expect(fetch(`http://${PUBLIC}/`)).rejects.toMatchObject({ cause: { code: GUARD_ERROR_CODE } });
    // A name whose own lookup answers a public address, as a pinned request's does.
    const lookup: net.LookupFunction = (_host, _options, callback) => callback(null, [{ address: PUBLIC, family: 4 }]);
    expect(await failure(net.connect({ host: 'public.guard.test', port: 80, lookup }))).toMatchObject({ code: GUARD_ERROR_CODE });
    const viaHttp = await new Promise<Error>((resolve) => request({ host: 'public.guard.test', port: 8080, lookup, agent: false }).on('error', resolve).end());
    expect(viaHttp).toMatchObject({ code: GUARD_ERROR_CODE });
    expect(takeViolations().map((v) => v.target)).toEqual([`${PUBLIC}:80`, `${PUBLIC} (public.guard.test:80)`, `${PUBLIC} (public.guard.test:8080)`]);
  });

  it('refuses a UDP send to a public address without sending anything', async () => {
    const socket = dgram.createSocket('udp4');
    try {
      const error = await new Promise<Error | null>((resolve) => socket.send('ping', 53, PUBLIC, resolve));
      expect(error).toMatchObject({ code: GUARD_ERROR_CODE });
      // dgram binds a socket before its first send: still unbound, it never sent.
      expect(() => socket.address()).toThrow();
      expect(takeViolations()).toEqual([expect.objectContaining({ kind: 'UDP', target: `${PUBLIC}:53` })]);
    } finally {
      socket.close();
    }
  });

  it('refuses DNS queries for outside names, through lookup, resolve and a Resolver', async () => {
    await expect(dns.promises.lookup('example.invalid')).rejects.toMatchObject({ code: GUARD_ERROR_CODE });
    await expect(new dns.promises.Resolver().resolve4('example.invalid')).rejects.toMatchObject({ code: GUARD_ERROR_CODE });
    const resolved = await new Promise<Error | null>((resolve) => dns.resolveTxt('example.invalid', (error) => resolve(error)));
    expect(resolved).toMatchObject({ code: GUARD_ERROR_CODE });
    expect(takeViolations().map((v) => [v.kind, v.api])).toEqual([
      ['DNS', 'dns.promises.lookup'],
      ['DNS', 'dns.promises.Resolver#resolve4'],
      ['DNS', 'dns.resolveTxt'],
    ]);
  });

  it('allows 127.0.0.2, ::1 and localhost', async () => {
    expect(await body(`http://127.0.0.2:${await serve('127.0.0.2')}/`)).toBe('here');
    expect(await body(`http://[::1]:${await serve('::1')}/`)).toBe('here');
    expect(await body(`http://localhost:${await serve('127.0.0.1')}/`)).toBe('here');
    const udp = dgram.createSocket('udp6');
    try {
      await new Promise<void>((resolve, reject) => udp.send('ping', 9, '::1', (error) => (error ? reject(error) : resolve())));
    } finally {
      udp.close();
    }
    expect(takeViolations()).toEqual([]);
  });
});
