import { runResidentService } from '../../src/common/resident-service.js';

// Resident service of a service-expected agent: keeps its heartbeat in <logsDir>/community-helper-service.json.
runResidentService('community-helper');
