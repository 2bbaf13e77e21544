// The loopback guard: tests may send traffic only to this machine's loopback addresses
// (127.0.0.0/8 and ::1). Installed, it refuses every TCP connection (net, tls, http, fetch all
// connect through net.Socket), every UDP send or connect (dgram) and every DNS query (dns.lookup
// of a name, dns.resolve*, a Resolver's queries, reverse lookups) that would leave loopback,
// before anything is sent. Each refusal is recorded, so the test that caused it fails even when
// the code under test swallows the error (test/support/loopback-guard-setup.ts), and the
// refused call fails the way a network failure would, with an error whose code is
// ERR_LOOPBACK_GUARD and whose message names the call and the address.
//
// Plain JavaScript so that a spawned service can preload it too (loopback-guard-preload.mjs).
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';

export const GUARD_ERROR_CODE = 'ERR_LOOPBACK_GUARD';

/** How a spawned service reports a refusal on stderr (loopback-guard-preload.mjs). */
export const GUARD_REPORT_PREFIX = 'loopback-guard: ';

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Where the guard keeps its state: one per process, whichever copy of this module installed it. */
const STATE = Symbol.for('task-orchestrator.loopback-guard');

function unbracket(host) {
  return String(host).trim().toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/** True for an address in 127.0.0.0/8 or ::1 (IPv4-mapped forms included). */
export function isLoopbackAddress(address) {
  const text = unbracket(address);
  const family = net.isIP(text);
  return family !== 0 && LOOPBACK.check(text, family === 6 ? 'ipv6' : 'ipv4');
}

/** A name the system answers from this machine alone: localhost or a loopback literal. */
function isLocalName(host) {
  return unbracket(host) === 'localhost' || isLoopbackAddress(host);
}

function state() {
  return globalThis[STATE];
}

/** The stack of the code that called the guarded function, for the report. */
function callerStack() {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  return frames.filter((frame) => !frame.includes('loopback-guard.mjs')).slice(0, 10).join('\n');
}

/**
 * Records one refused call and answers the error the caller receives. `stack` is where the call
 * was made, so the failing test names the code that reached out.
 */
function refuse(kind, api, target, stack = callerStack()) {
  const violation = { kind, api, target, stack };
  const guard = state();
  guard.violations.push(violation);
  guard.onViolation?.(violation);
  const error = new Error(`loopback guard: ${describeViolation(violation)}`);
  error.code = GUARD_ERROR_CODE;
  return error;
}

/** One line naming what was refused. */
export function describeViolation(violation) {
  return `${violation.api} to ${violation.target} refused (${violation.kind}); tests may reach only 127.0.0.0/8 and ::1`;
}

/** The refusals recorded since the last call, oldest first; the record is emptied. */
export function takeViolations() {
  const guard = state();
  return guard ? guard.violations.splice(0) : [];
}

function lastFunction(args) {
  const last = args[args.length - 1];
  return typeof last === 'function' ? last : undefined;
}

// ---- DNS -------------------------------------------------------------------------------------

function guardLookup(original, api) {
  return function guardedLookup(hostname, ...rest) {
    // An IP literal is answered without a query; a name other than localhost would ask a server.
    if (net.isIP(unbracket(hostname)) !== 0 || isLocalName(hostname)) return Reflect.apply(original, this, [hostname, ...rest]);
    const error = refuse('DNS', api, hostname);
    const callback = lastFunction(rest);
    if (callback) process.nextTick(callback, error);
    return {};
  };
}

function guardPromisesLookup(original, api) {
  return async function guardedLookup(hostname, ...rest) {
    if (net.isIP(unbracket(hostname)) !== 0 || isLocalName(hostname)) return Reflect.apply(original, this, [hostname, ...rest]);
    throw refuse('DNS', api, hostname);
  };
}

/** A query (resolve*, reverse, lookupService): allowed for localhost and loopback literals only. */
function guardQuery(original, api, promised) {
  return function guardedQuery(name, ...rest) {
    if (isLocalName(name)) return Reflect.apply(original, this, [name, ...rest]);
    const error = refuse('DNS', api, name);
    if (promised) return Promise.reject(error);
    const callback = lastFunction(rest);
    if (callback) process.nextTick(callback, error);
    return {};
  };
}

const QUERY_NAMES = ['resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCaa', 'resolveCname', 'resolveMx', 'resolveNaptr', 'resolveNs', 'resolvePtr', 'resolveSoa', 'resolveSrv', 'resolveTxt', 'reverse'];

function patch(target, name, wrap) {
  if (typeof target[name] !== 'function') return;
  target[name] = wrap(target[name]);
}

function guardDns() {
  patch(dns, 'lookup', (original) => guardLookup(original, 'dns.lookup'));
  patch(dns.promises, 'lookup', (original) => guardPromisesLookup(original, 'dns.promises.lookup'));
  patch(dns, 'lookupService', (original) => guardQuery(original, 'dns.lookupService', false));
  patch(dns.promises, 'lookupService', (original) => guardQuery(original, 'dns.promises.lookupService', true));
  for (const name of QUERY_NAMES) {
    // The module's own functions are bound to a default resolver, so both they and the
    // Resolver classes' methods are wrapped.
    patch(dns, name, (original) => guardQuery(original, `dns.${name}`, false));
    patch(dns.promises, name, (original) => guardQuery(original, `dns.promises.${name}`, true));
    patch(dns.Resolver.prototype, name, (original) => guardQuery(original, `dns.Resolver#${name}`, false));
    patch(dns.promises.Resolver.prototype, name, (original) => guardQuery(original, `dns.promises.Resolver#${name}`, true));
  }
}

// ---- TCP (net, tls, http, https, fetch) ------------------------------------------------------

/** The options of a connect call in any of its forms, or null for a form it does not know. */
function connectOptions(args) {
  const first = args[0];
  // net.connect hands Socket#connect its arguments already normalized: [options, callback].
  if (Array.isArray(first)) return { options: first[0] ?? {}, replace: (options) => ((first[0] = options), args) };
  if (typeof first === 'object' && first !== null) return { options: first, replace: (options) => [options, ...args.slice(1)] };
  if (typeof first === 'string' && !/^\d+$/.test(first)) return { options: { path: first }, replace: () => args };
  const options = { port: first, ...(typeof args[1] === 'string' ? { host: args[1] } : {}) };
  const callback = lastFunction(args);
  return { options, replace: (guarded) => (callback ? [guarded, callback] : [guarded]) };
}

/** The socket's lookup, checked: a name that resolves outside loopback fails before the socket connects. */
function checkedLookup(lookup, target, stack) {
  return function lookupThenCheck(hostname, options, callback) {
    const resolve = lookup ?? dns.lookup;
    resolve(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const answers = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
      const outside = answers.find((answer) => !isLoopbackAddress(answer));
      if (outside !== undefined) return callback(refuse('TCP', 'net.Socket#connect', `${outside} (${target})`, stack));
      return callback(null, address, family);
    });
  };
}

function guardTcp() {
  const original = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(...args) {
    const parsed = connectOptions(args);
    const { options } = parsed;
    // An IPC path (a Unix socket) never leaves the machine; Node takes any non-empty path as one.
    if (options.path) return Reflect.apply(original, this, args);
    const host = options.host || 'localhost';
    const target = `${host}:${options.port}`;
    if (net.isIP(unbracket(host)) !== 0) {
      if (isLoopbackAddress(host)) return Reflect.apply(original, this, args);
      const error = refuse('TCP', 'net.Socket#connect', target);
      // Fail like a refused connection: later, once the caller has its listeners on, and never
      // with a socket handle (nothing is opened). Writes meanwhile are held, then dropped.
      this.connecting = true;
      setImmediate(() => this.destroy(error));
      return this;
    }
    return Reflect.apply(original, this, parsed.replace({ ...options, lookup: checkedLookup(options.lookup, target, callerStack()) }));
  };
}

// ---- UDP (dgram) -----------------------------------------------------------------------------

function isConnected(socket) {
  try {
    socket.remoteAddress();
    return true;
  } catch {
    return false;
  }
}

/** Where a send goes, read the way dgram reads its arguments; no address means loopback. */
function sendTarget(args) {
  let [, offset, length, port, address] = args;
  if (!(address || (port && typeof port !== 'function'))) {
    port = offset;
    address = length;
  }
  return { port, address: typeof address === 'string' ? address : undefined };
}

function udpAllowed(address) {
  return address === undefined || isLocalName(address);
}

function failUdp(socket, callback, error) {
  if (callback) process.nextTick(callback, error);
  else process.nextTick(() => socket.emit('error', error));
}

function guardUdp() {
  const send = dgram.Socket.prototype.send;
  dgram.Socket.prototype.send = function guardedSend(...args) {
    if (isConnected(this)) return Reflect.apply(send, this, args);
    const { port, address } = sendTarget(args);
    if (udpAllowed(address)) return Reflect.apply(send, this, args);
    failUdp(this, lastFunction(args), refuse('UDP', 'dgram.Socket#send', `${address}:${port}`));
    return undefined;
  };
  const connect = dgram.Socket.prototype.connect;
  dgram.Socket.prototype.connect = function guardedConnect(port, address, callback) {
    const host = typeof address === 'string' ? address : undefined;
    if (udpAllowed(host)) return Reflect.apply(connect, this, [port, address, callback].filter((a) => a !== undefined));
    failUdp(this, undefined, refuse('UDP', 'dgram.Socket#connect', `${host}:${port}`));
    return undefined;
  };
}

/**
 * Installs the guard in this process (once; later calls only replace `onViolation`).
 * `onViolation` hears each refusal as it happens (a spawned service prints it).
 */
export function installLoopbackGuard({ onViolation } = {}) {
  if (state()) {
    if (onViolation) state().onViolation = onViolation;
    return;
  }
  globalThis[STATE] = { violations: [], onViolation };
  guardDns();
  guardTcp();
  guardUdp();
}
