// Resumable uploads (tus, docs/api.md "Resumable uploads"): `config.uploads`.
import { int, type Section, setting } from '../section.js';

const HOUR = 3_600_000;

export const uploads = {
  QUIRE_UPLOAD_EXPIRY_MS: setting(
    'expiryMs',
    int(
      1_000,
      30 * 24 * HOUR,
      24 * HOUR,
      'How long a resumable upload is kept from its creation until a job uses it; the sweeper then deletes its bytes.',
    ),
  ),
} satisfies Section;
