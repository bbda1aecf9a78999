// Entry point: the sign-in link's key is taken before anything renders, then the app starts.
import { render } from 'preact';
import { App } from './app.js';
import { saveKey, takeKeyFromFragment } from './session.js';
import './styles.css';

const linked = takeKeyFromFragment();
if (linked) saveKey(linked, false);

const root = document.getElementById('app');
if (root) render(<App />, root);
