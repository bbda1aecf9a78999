// Parses `s3://bucket/prefix?endpoint=…&region=…&force_path_style=true`. Kept apart from the S3 store
// so that config validation can check the URL at start without loading the AWS SDK.
import { assertValidKey } from '../blobs/keys.js';

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
  let prefix = rawPath;
  if (prefix !== '') {
    try {
      prefix = decodeURIComponent(rawPath).replace(/^\/+|\/+$/g, '');
      if (prefix !== '') assertValidKey(prefix);
    } catch {
      throw new InvalidS3UrlError('S3 storage URL prefix must be segments of [A-Za-z0-9._-]');
    }
  }
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
