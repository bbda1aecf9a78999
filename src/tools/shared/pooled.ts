// Work over a list with a few items in flight, for tools whose items are engine runs or image
// encodes writing into the job's work dir.

/**
 * Runs `work` over `items` with at most `limit` at a time. After a failure no further item starts;
 * the ones in flight run to their end (nothing is left writing into the work dir), then the first
 * failure is thrown.
 */
export async function pooled<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (next < items.length && !failure) {
      const index = next++;
      try {
        await work(items[index]!, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure) throw failure.error;
}
