import { useState } from 'react';
import { curlCommand } from './curl.js';

/**
 * Copies the curl command equivalent to an action. The command names $ORCH_API_KEY instead of
 * the session's key; where the clipboard is refused the command is shown to copy by hand.
 */
export function CopyCurl({ method, path, body }: { method: 'GET' | 'POST'; path: string; body?: unknown }) {
  const [state, setState] = useState<'idle' | 'copied' | 'shown'>('idle');
  const command = curlCommand(window.location.origin, method, path, body);
  async function copy() {
    try {
      await navigator.clipboard.writeText(command);
      setState('copied');
    } catch {
      setState('shown');
    }
  }
  return (
    <span className="copy-curl">
      <button type="button" className="secondary" onClick={() => void copy()} data-command={command}>
        {state === 'copied' ? 'Copied curl' : 'Copy curl'}
      </button>
      {state === 'shown' && (
        <code className="command" aria-label="curl command">
          {command}
        </code>
      )}
    </span>
  );
}
