import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ErrorNotice } from '../components/common.js';
import { useSession } from '../auth/session.js';

/** The bearer token is checked with GET /api/auth/me before it is kept. */
export function LoginPage() {
  const { login } = useSession();
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login(token);
      setToken('');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="login">
      <h1>Operator console</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <label htmlFor="token">Bearer token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          spellCheck={false}
          required
          value={token}
          onChange={(e) => setToken(e.target.value)}
        />
        <button type="submit" disabled={busy || token.trim() === ''}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
      {error !== null && <ErrorNotice error={error} />}
      <p>
        <Link to="/public-proof">Public proof</Link> needs no token.
      </p>
    </main>
  );
}
