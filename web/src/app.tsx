// The shell: sign-in gate, navigation and a hash router (#/tools/<name>, #/jobs, #/jobs/<id>), so
// every screen works under whatever path the server sits at.
import type { QuireBrowser, ToolList } from '@quire/client/browser';
import { lazy, Suspense } from 'preact/compat';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { JobView } from './job-view.js';
import { JobsPage } from './jobs-page.js';
import { Recipes } from './recipes.js';
import { clientFor, forgetKey, saveKey, storedKey, takeKeyFromFragment } from './session.js';
import { SignIn } from './signin.js';
import { ToolPage } from './tool-page.js';
import { ToolPicker } from './tool-picker.js';

// pdf.js comes with the organizer, loaded only when it opens.
const Organizer = lazy(() => import('./organizer.js'));

function useRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    // Only `#/…` is a route: the skip link's `#main` (and a sign-in link's `#key=`) leave the screen as it is.
    const onChange = () => {
      if (location.hash === '' || location.hash.startsWith('#/')) setRoute(read());
    };
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function App() {
  const [key, setKey] = useState(storedKey);
  // A sign-in link opened in a tab already on the app changes only the fragment: no new page load.
  useEffect(() => {
    const onChange = () => {
      const linked = takeKeyFromFragment();
      if (!linked) return;
      saveKey(linked, false);
      setKey(linked);
    };
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  const client = useMemo(() => (key ? clientFor(key) : null), [key]);
  if (!client) return <SignIn onSignedIn={setKey} />;
  return (
    <SignedIn
      client={client}
      onSignOut={() => {
        forgetKey();
        setKey(null);
      }}
    />
  );
}

function SignedIn({ client, onSignOut }: { client: QuireBrowser; onSignOut: () => void }) {
  const route = useRoute();
  const [catalogue, setCatalogue] = useState<ToolList | null>(null);
  const [failure, setFailure] = useState('');
  useEffect(() => {
    client.tools.list().then(setCatalogue, (error: Error) => setFailure(error.message));
  }, [client]);
  const [section, id] = route;
  let screen = <p>Loading the tool catalogue…</p>;
  if (failure) screen = <p role="alert">Could not load the tools: {failure}</p>;
  else if (catalogue) {
    if (section === 'tools' && id) screen = <ToolPage client={client} catalogue={catalogue} name={id} />;
    else if (section === 'jobs' && id) screen = <JobView client={client} id={id} />;
    else if (section === 'jobs') screen = <JobsPage client={client} catalogue={catalogue} />;
    else if (section === 'recipes') screen = <Recipes client={client} catalogue={catalogue} />;
    else if (section === 'organize')
      screen = (
        <Suspense fallback={<p role="status">Loading the page organizer…</p>}>
          <Organizer client={client} />
        </Suspense>
      );
    else screen = <ToolPicker catalogue={catalogue} />;
  }
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="bar">
        <a class="brand" href="#/">
          Quire
        </a>
        <nav aria-label="Main">
          <a href="#/" aria-current={section === undefined || section === 'tools' ? 'page' : undefined}>
            Tools
          </a>
          <a href="#/organize" aria-current={section === 'organize' ? 'page' : undefined}>
            Organize
          </a>
          <a href="#/recipes" aria-current={section === 'recipes' ? 'page' : undefined}>
            Recipes
          </a>
          <a href="#/jobs" aria-current={section === 'jobs' ? 'page' : undefined}>
            Jobs
          </a>
          <a href="docs/">API</a>
        </nav>
        <button type="button" class="link" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {screen}
      </main>
    </>
  );
}
