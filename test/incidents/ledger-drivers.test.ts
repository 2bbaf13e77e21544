import { join } from 'node:path';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import { SqliteStateStore } from '../../src/store/sqlite/sqlite-state-store.js';
import { describeLedgerConformance } from './ledger-conformance.js';

describeLedgerConformance('the JSON file store', (dir) => new FileStateStore(join(dir, 'orchestrator-state.json')));
describeLedgerConformance('the SQLite store', (dir) => new SqliteStateStore(join(dir, 'orchestrator.sqlite')));
