// The HTTP listener and the public origin of download links: `config.http`.
import { Type } from '@sinclair/typebox';
import { int, type Section, setting } from '../section.js';

export const http = {
  QUIRE_HOST: setting(
    'host',
    Type.String({ default: '127.0.0.1', minLength: 1, description: 'Address the HTTP server binds to.' }),
  ),
  QUIRE_PORT: setting('port', int(0, 65535, 8080, 'HTTP port.')),
  QUIRE_PUBLIC_BASE_URL: setting(
    'publicBaseUrl',
    // Without its trailing slash, so that links are `${publicBaseUrl}/files/…` either way.
    Type.Transform(
      Type.String({
        default: '',
        description:
          'Absolute base for temporary download links (e.g. https://pdf.example.com); relative when empty.',
      }),
    )
      .Decode((url) => url.replace(/\/$/, ''))
      .Encode((url) => url),
  ),
  QUIRE_PREFER_WAIT_MAX_S: setting(
    'preferWaitMaxS',
    int(
      0,
      600,
      60,
      'Longest `Prefer: wait=N` a job creation is held for (seconds); longer requests are capped, 0 turns it off.',
    ),
  ),
  QUIRE_STREAMS_MAX_PER_KEY: setting(
    'streamsMaxPerKey',
    int(
      1,
      100_000,
      10,
      'Event streams and long-polls one API key may hold open at once per API process; more get 429 `too_many_streams`.',
    ),
  ),
  QUIRE_STREAMS_MAX_PER_ACCOUNT: setting(
    'streamsMaxPerAccount',
    int(
      1,
      100_000,
      20,
      'Event streams and long-polls one account may hold open at once per API process, over all its keys.',
    ),
  ),
  QUIRE_MCP_ENABLED: setting(
    'mcpEnabled',
    Type.Boolean({
      default: true,
      description:
        'Serve the MCP server (streamable HTTP at `/mcp`, docs/agents.md); `false` answers `/mcp` with 404.',
    }),
  ),
} satisfies Section;
