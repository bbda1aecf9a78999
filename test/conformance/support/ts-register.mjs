// `node --import ./ts-register.mjs child.ts`: installs the TypeScript hooks before the entry loads.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
