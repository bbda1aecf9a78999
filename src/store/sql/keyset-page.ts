// Newest-first keyset pagination (docs/api.md §2, lists): rows strictly older than the cursor row by
// (created_at, id), one extra row fetched to tell whether another page follows. Keyset rather than
// OFFSET, so a page costs the same however deep it is and rows inserted meanwhile never shift it.
import { type SelectQueryBuilder, sql } from 'kysely';

export interface PageCursor {
  created_at: number;
  id: string;
}

export async function keysetPage<DB, TB extends keyof DB, O>(
  select: SelectQueryBuilder<DB, TB, O>,
  /** The (created_at, id) columns as the query names them, e.g. `m.created_at`, `m.id`. */
  columns: readonly [createdAt: string, id: string],
  cursor: PageCursor | undefined,
  limit: number,
): Promise<{ rows: O[]; hasMore: boolean }> {
  const size = Math.max(1, Math.floor(limit));
  const [createdAt, id] = columns.map((column) => sql.ref(column));
  const after = cursor
    ? select.where(sql<boolean>`(${createdAt}, ${id}) < (${cursor.created_at}, ${cursor.id})`)
    : select;
  const rows = await after
    .orderBy(sql`${createdAt} desc`)
    .orderBy(sql`${id} desc`)
    .limit(size + 1)
    .execute();
  return { rows: rows.slice(0, size), hasMore: rows.length > size };
}
