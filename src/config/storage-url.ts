// The storage URL's grammar: `s3://bucket/prefix?endpoint=…&region=…&force_path_style=true` and the
// object paths under it. In config so that a bad URL fails at start, without loading the AWS SDK.

/** Longest object path accepted; far above `jobs/<job id>/result-12` and below every filesystem's PATH_MAX. */
const MAX_OBJECT_PATH_LENGTH = 512;

/**
 * Segments start with a letter or digit and use only [A-Za-z0-9._-]: no empty, `.` or `..`
 * segments, no leading or trailing slash, no backslashes or control characters. A leading dot is
 * reserved for the local store's in-progress temporary files, which can never collide with a key.
 */
const OBJECT_PATH = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/**
 * Whether `value` is a safe relative path inside a store: every blob key, and the S3 prefix the
 * store puts before them, so that no key, however built, names a path outside the store's root.
 */
export function isObjectPath(value: string): boolean {
  return typeof value === 'string' && value.length <= MAX_OBJECT_PATH_LENGTH && OBJECT_PATH.test(value);
}

export interface S3Location {
  bucket: string;
  /** Key prefix without leading or trailing slash; '' for the bucket's root. */
  prefix: string;
  /** Custom endpoint (MinIO, SeaweedFS, R2…); the SDK's AWS endpoint when undefined. */
  endpoint?: string;
  region?: string;
  forcePathStyle: boolean;
}

export class InvalidS3UrlError extends Error {
  override name = 'InvalidS3UrlError';
}

/** AWS's bucket naming rules (3–63 chars, lower case, digits, dots, hyphens), which others follow. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const PARAMS = new Set(['endpoint', 'region', 'force_path_style']);

/**
 * Credentials never come from the URL: they come from the AWS credential chain (environment, shared
 * files, instance roles), so the URL can be logged and shown in errors. Messages here therefore name
 * parameters, never echo values, in case someone pastes a secret into the URL anyway.
 */
export function parseS3Url(url: string): S3Location {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidS3UrlError('S3 storage URL is malformed; expected s3://bucket/prefix?region=…');
  }
  if (parsed.protocol !== 's3:') throw new InvalidS3UrlError('S3 storage URL must start with s3://');
  if (parsed.username || parsed.password) {
    throw new InvalidS3UrlError(
      'S3 storage URL must not carry credentials; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    );
  }
  if (!BUCKET.test(parsed.hostname) || parsed.port !== '') {
    throw new InvalidS3UrlError('S3 storage URL needs a valid bucket name: s3://<bucket>/<prefix>');
  }
  for (const name of parsed.searchParams.keys()) {
    if (!PARAMS.has(name)) {
      throw new InvalidS3UrlError(
        `S3 storage URL has an unknown parameter "${name.slice(0, 40)}" (allowed: ${[...PARAMS].join(', ')})`,
      );
    }
  }
  // From the raw text: URL parsing would quietly resolve `a/../b` into `b`.
  const rawPath = url
    .slice('s3://'.length)
    .split(/[?#]/)[0]!
    .replace(/^[^/]*/, '');
  const prefix = rawPath === '' ? '' : decodePrefix(rawPath);
  const endpoint = parsed.searchParams.get('endpoint') ?? undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/?#]+\/?$/.test(endpoint)) {
    throw new InvalidS3UrlError('S3 storage URL endpoint must be http(s)://host[:port]');
  }
  const forcePathStyle = parsed.searchParams.get('force_path_style') ?? 'false';
  if (forcePathStyle !== 'true' && forcePathStyle !== 'false') {
    throw new InvalidS3UrlError('S3 storage URL force_path_style must be true or false');
  }
  const region = parsed.searchParams.get('region') || undefined;
  return { bucket: parsed.hostname, prefix, endpoint, region, forcePathStyle: forcePathStyle === 'true' };
}

const BAD_PREFIX = 'S3 storage URL prefix must be segments of [A-Za-z0-9._-]';

function decodePrefix(rawPath: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    throw new InvalidS3UrlError(BAD_PREFIX);
  }
  const prefix = decoded.replace(/^\/+|\/+$/g, '');
  if (prefix !== '' && !isObjectPath(prefix)) throw new InvalidS3UrlError(BAD_PREFIX);
  return prefix;
}
