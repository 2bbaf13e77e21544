import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter, Link, Route, Routes } from 'react-router';
import { retryDelayMs, shouldRetry } from './api/retry.js';
import { SessionProvider } from './auth/session.js';
import { ProtectedLayout } from './components/Layout.js';
import { AgentsPage } from './pages/Agents.js';
import { BusinessPage } from './pages/Business.js';
import { KnowledgePage } from './pages/Knowledge.js';
import { QueuePage } from './pages/Queue.js';
import { SchedulesPage } from './pages/Schedules.js';
import { ApprovalLinkPage } from './pages/ApprovalLink.js';
import { ApprovalsPage } from './pages/Approvals.js';
import { HomePage } from './pages/Home.js';
import { IncidentDetailPage, IncidentsPage } from './pages/Incidents.js';
import { PublicProofPage } from './pages/PublicProof.js';
import { SystemHealthPage } from './pages/SystemHealth.js';
import { TasksPage } from './pages/Tasks.js';
import { RunDetailPage } from './runs/RunPage.js';
import { RunsPage } from './runs/RunsList.js';
import { FlowDetailPage, FlowsPage } from './flows/FlowPages.js';

/** Client errors (4xx) are answers, not blips; 429 waits for Retry-After (src/api/retry.ts). */
const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: shouldRetry,
      retryDelay: retryDelayMs,
      refetchOnWindowFocus: true,
    },
  },
});

function NotFoundPage() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        <Link to="/">Back to the overview</Link>
      </p>
    </>
  );
}

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <BrowserRouter basename="/operator">
          <Routes>
            <Route path="public-proof" element={<PublicProofPage />} />
            {/* An approval link carries its own credential: no login (pages/ApprovalLink.tsx). */}
            <Route path="approvals/link" element={<ApprovalLinkPage />} />
            <Route element={<ProtectedLayout />}>
              <Route index element={<HomePage />} />
              <Route path="tasks" element={<TasksPage />} />
              <Route path="runs" element={<RunsPage />} />
              <Route path="runs/:runId" element={<RunDetailPage />} />
              <Route path="flows" element={<FlowsPage />} />
              <Route path="flows/:flowId" element={<FlowDetailPage />} />
              <Route path="approvals" element={<ApprovalsPage />} />
              <Route path="incidents" element={<IncidentsPage />} />
              <Route path="incidents/:incidentId" element={<IncidentDetailPage />} />
              <Route path="queue" element={<QueuePage />} />
              <Route path="schedules" element={<SchedulesPage />} />
              <Route path="agents" element={<AgentsPage />} />
              <Route path="knowledge" element={<KnowledgePage />} />
              <Route path="business" element={<BusinessPage />} />
              <Route path="system-health" element={<SystemHealthPage />} />
              <Route path="*" element={<NotFoundPage />} />
            </Route>
          </Routes>
        </BrowserRouter>
      </SessionProvider>
    </QueryClientProvider>
  );
}
