// The Content-Disposition of every download (docs/api.md §2), one builder for every blob store: the local
// link route sends it itself, and the S3 store has S3 send it through a presigned URL's override.
import contentDisposition from 'content-disposition';

/**
 * `attachment; filename="…"; filename*=UTF-8''…`, as docs/api.md shows. The quoted name is plain
 * ASCII (old clients mangle Latin-1); the library adds `filename*` only when the name is not ASCII,
 * so it is added here for the others. The whole value is ASCII, so it survives any header path.
 */
export function attachmentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]/g, '_');
  const header = contentDisposition(filename, { type: 'attachment', fallback });
  if (header.includes('filename*=')) return header;
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${header}; filename*=UTF-8''${encoded}`;
}
