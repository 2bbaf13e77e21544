import { NavLink, Outlet } from 'react-router';
import { useSession } from '../auth/session.js';
import { LoginPage } from '../pages/Login.js';

const NAV = [
  { to: '/', label: 'Overview', end: true },
  { to: '/tasks', label: 'Tasks' },
  { to: '/runs', label: 'Runs' },
  { to: '/flows', label: 'Flows' },
  { to: '/queue', label: 'Queue' },
  { to: '/schedules', label: 'Schedules' },
  { to: '/approvals', label: 'Approvals' },
  { to: '/incidents', label: 'Incidents' },
  { to: '/agents', label: 'Agents' },
  { to: '/knowledge', label: 'Knowledge' },
  { to: '/business', label: 'Business' },
  { to: '/system-health', label: 'System health' },
  { to: '/public-proof', label: 'Public proof' },
];

/** Protected pages: the login screen until a token is validated, then the navigation and the page. */
export function ProtectedLayout() {
  const { identity, checking, logout } = useSession();
  if (checking) return <p role="status">Checking session…</p>;
  if (!identity) return <LoginPage />;
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-row">
          <span className="brand">Operator console</span>
          <span className="identity" aria-label="Signed in as">
            {identity.actor} ({identity.role})
          </span>
          <button type="button" className="secondary" onClick={logout}>
            Log out
          </button>
        </div>
        <nav aria-label="Main">
          {NAV.map((item) => (
            <NavLink key={item.to} to={item.to} end={item.end}>
              {item.label}
            </NavLink>
          ))}
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
