// Digital signatures (the `sign` tool): the time-stamp authority for PAdES B-T: `config.signing`.
import { Type } from '@sinclair/typebox';
import { type Section, setting } from '../section.js';

export const signing = {
  QUIRE_SIGN_TSA_URL: setting(
    'tsaUrl',
    Type.String({
      default: '',
      pattern: '^(https?://[^\\s]+)?$',
      description:
        'RFC 3161 time-stamp authority (http or https URL) that `sign` asks for a timestamp, making signatures PAdES B-T; empty signs B-B. Reached only at public addresses (the webhooks’ SSRF guard).',
    }),
  ),
  QUIRE_SIGN_TSA_ALLOW_PRIVATE: setting(
    'tsaAllowPrivate',
    Type.Boolean({
      default: false,
      description:
        'Allow a time-stamp authority on loopback, private and link-local addresses (an in-house TSA, tests).',
    }),
  ),
} satisfies Section;
