// The one configuration: every section's QUIRE_* variables read once at start, validated, failing fast
// with the variable's name. Modules receive their section; nothing reads the environment later.
import { isPlanVariable } from './plans.js';
import { ConfigError, readSection, type Section, type SectionValues } from './section.js';
import { type Accounts, accounts, resolveAccounts } from './sections/accounts.js';
import { browser, type HeavyEngines, ocr, office } from './sections/heavy-engines.js';
import { http } from './sections/http.js';
import { checkLimits, limits } from './sections/limits.js';
import { recipes } from './sections/recipes.js';
import { retention } from './sections/retention.js';
import { resolveServer, type Server, server } from './sections/server.js';
import { signing } from './sections/signing.js';
import { transfers } from './sections/transfers.js';
import { uploads } from './sections/uploads.js';
import { webhooks } from './sections/webhooks.js';
import { worker } from './sections/worker.js';

/** Every section by name, in the order of the README's settings table. */
const byName = {
  http,
  server,
  worker,
  limits,
  ocr,
  office,
  browser,
  retention,
  accounts,
  webhooks,
  recipes,
  signing,
  transfers,
  uploads,
};

export const sections: readonly Section[] = Object.values(byName);

type Values = { [Name in keyof typeof byName]: SectionValues<(typeof byName)[Name]> };

/** Each section's values under its name; the process-wide ones (server, accounts) at the top. */
export type Config = Server &
  Accounts &
  Pick<
    Values,
    'http' | 'worker' | 'limits' | 'retention' | 'webhooks' | 'recipes' | 'signing' | 'transfers' | 'uploads'
  > & {
    heavyEngines: HeavyEngines;
  };

/** Reads, converts and validates every QUIRE_* variable; throws ConfigError naming the first bad one. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Every variable on its own first, in table order; then the checks across variables.
  const values = Object.fromEntries(
    Object.entries(byName).map(([name, section]) => [name, readSection(section, env)]),
  ) as Values;
  refuseUnknown(env);
  return {
    ...resolveServer(values.server),
    limits: checkLimits(values.limits),
    ...resolveAccounts(values.accounts, env),
    http: values.http,
    worker: values.worker,
    retention: values.retention,
    webhooks: values.webhooks,
    recipes: values.recipes,
    signing: values.signing,
    transfers: values.transfers,
    uploads: values.uploads,
    heavyEngines: { ...values.ocr, office: values.office, browser: values.browser },
  };
}

/** Variables read by scripts rather than the service (the test command's set-up). */
const KNOWN_EXTRA = new Set(['QUIRE_SKIP_INSTALL']);

/** A misspelt variable would otherwise silently leave its setting at the default. */
function refuseUnknown(env: NodeJS.ProcessEnv): void {
  const known = new Set(sections.flatMap((section) => Object.keys(section)));
  const unknown = Object.keys(env).filter(
    (name) =>
      name.startsWith('QUIRE_') && !known.has(name) && !KNOWN_EXTRA.has(name) && !isPlanVariable(name),
  );
  if (unknown.length > 0) {
    throw new ConfigError(`Unknown setting ${unknown.join(', ')} (see README "Configuration")`);
  }
}
