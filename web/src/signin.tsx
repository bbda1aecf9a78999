// The sign-in form: an API key, checked against the API before it is kept.

import { QuireError } from '@quire/client/browser';
import { useState } from 'preact/hooks';
import { clientFor, saveKey } from './session.js';

export function SignIn(props: { onSignedIn: (key: string) => void; notice?: string }) {
  const [key, setKey] = useState('');
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState(props.notice ?? '');
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      await clientFor(key.trim()).tools.list();
      saveKey(key.trim(), remember);
      props.onSignedIn(key.trim());
    } catch (failure) {
      setError(
        failure instanceof QuireError && failure.status === 401
          ? 'This key was not accepted. Check it and try again.'
          : `Could not reach Quire: ${failure instanceof Error ? failure.message : String(failure)}`,
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="narrow">
      <h1>Sign in to Quire</h1>
      <form onSubmit={submit} aria-describedby="signin-help">
        <p id="signin-help">
          Paste an API key (<code>qk_…</code>). It is sent only to this Quire server.
        </p>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          required
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'signin-error' : undefined}
        />
        <label class="check">
          <input
            type="checkbox"
            checked={remember}
            onChange={(e) => setRemember((e.target as HTMLInputElement).checked)}
          />
          Remember me on this device
        </label>
        {error && (
          <p id="signin-error" class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
