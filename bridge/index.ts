/** The `/orch` chat bridge: `createBridge(...).handle(text, {user, channel})` for a gateway, or `orch bridge serve` over signed HTTP. */
export { createBridge, type Bridge, type BridgeOptions, type ChatContext } from './bridge.js';
export { createBridgeServer, type BridgeServerOptions } from './http-adapter.js';
export { loadBridgeConfig, type BridgeFile, type ResolvedBridgeConfig } from './config.js';
export { MAX_REPLY_CHARS } from './reply.js';
