// A PDF preview with pdf.js: the first pages drawn to canvases. Loaded on demand (import() in
// job-view.tsx), with its worker as a file of this app (no CDN, allowed by the CSP's worker-src 'self').
import * as pdfjs from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { useEffect, useRef, useState } from 'preact/hooks';

pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;

const MAX_PAGES = 3;

export default function PdfPreview({ url }: { url: string }) {
  const holder = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState('Rendering…');
  useEffect(() => {
    let stopped = false;
    const task = pdfjs.getDocument({ url, isEvalSupported: false });
    (async () => {
      const pdf = await task.promise;
      const count = Math.min(pdf.numPages, MAX_PAGES);
      for (let n = 1; n <= count && !stopped; n++) {
        const page = await pdf.getPage(n);
        const viewport = page.getViewport({ scale: 1 });
        const canvas = document.createElement('canvas');
        canvas.width = viewport.width;
        canvas.height = viewport.height;
        canvas.setAttribute('role', 'img');
        canvas.setAttribute('aria-label', `Page ${n} of ${pdf.numPages}`);
        holder.current?.append(canvas);
        await page.render({ canvas, viewport }).promise;
      }
      if (!stopped)
        setStatus(
          `${pdf.numPages} page${pdf.numPages === 1 ? '' : 's'}${pdf.numPages > MAX_PAGES ? `, the first ${MAX_PAGES} shown` : ''}.`,
        );
    })().catch((error: Error) => setStatus(`Could not show the preview: ${error.message}`));
    return () => {
      stopped = true;
      void task.destroy();
    };
  }, [url]);
  return (
    <div class="pdf-preview">
      <p role="status">{status}</p>
      <div ref={holder} class="pages" />
    </div>
  );
}
