import { runResidentService } from '../../src/worker-sdk/resident-service.js';

// Resident service of a service-expected agent: keeps its heartbeat in <logsDir>/community-helper-service.json.
runResidentService('community-helper');
