import { runResidentService } from '../../src/common/resident-service.js';

// Resident service of a service-expected agent: keeps its heartbeat in <logsDir>/doc-specialist-service.json.
runResidentService('doc-specialist');
