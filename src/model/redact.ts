// Redaction of secret job options: the value that replaces a secret and the scrub applied when a job
// ends and in every public view, so no password outlives the job that needed it (docs/api.md §2).

/** What a secret option reads as once scrubbed, and in every public view. */
export const REDACTED = '[redacted]';

/**
 * Returns `options` with each option named in `secretOptions` replaced by `REDACTED`. Only options that
 * are present are replaced, so an omitted optional password does not appear as a redacted one.
 */
export function scrubSecretOptions(
  options: Record<string, unknown>,
  secretOptions: readonly string[],
): Record<string, unknown> {
  if (secretOptions.length === 0) return options;
  const scrubbed: Record<string, unknown> = { ...options };
  for (const name of secretOptions) {
    if (Object.hasOwn(scrubbed, name)) scrubbed[name] = REDACTED;
  }
  return scrubbed;
}
