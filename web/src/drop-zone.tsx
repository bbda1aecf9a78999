// The drop zone: takes the files the tool accepts, refuses any over the plan's limits before a byte
// is sent, orders them (merge) with buttons or by dragging, and shows each file's upload progress.
import type { ToolList } from '@quire/client/browser';
import { useState } from 'preact/hooks';
import { bytes } from './format.js';

export type Limits = ToolList['limits'];

export interface Picked {
  id: number;
  file: File;
  /** Bytes sent, while uploading. */
  sent?: number;
}

interface Props {
  accepts: string[];
  maxFiles: number;
  limits: Limits;
  files: Picked[];
  onChange: (files: Picked[]) => void;
}

let nextId = 1;

/** Why `incoming` cannot join `current`, by the plan's numbers (docs/api.md §5), or nothing. */
export function refusal(
  current: File[],
  incoming: File[],
  limits: Limits,
  maxFiles: number,
): string | undefined {
  const big = incoming.find((f) => f.size > limits.max_file_bytes);
  if (big)
    return `${big.name} is ${bytes(big.size)}: the ${limits.plan} plan takes files up to ${bytes(limits.max_file_bytes)}. Nothing was uploaded.`;
  const all = [...current, ...incoming];
  const total = all.reduce((sum, f) => sum + f.size, 0);
  if (total > limits.max_upload_bytes)
    return `These files come to ${bytes(total)}: one job takes up to ${bytes(limits.max_upload_bytes)}. Nothing was uploaded.`;
  if (all.length > maxFiles) return `This tool takes at most ${maxFiles} file${maxFiles === 1 ? '' : 's'}.`;
  return undefined;
}

export function DropZone({ accepts, maxFiles, limits, files, onChange }: Props) {
  const [message, setMessage] = useState('');
  const [over, setOver] = useState(false);
  const [dragged, setDragged] = useState<number | null>(null);

  function add(list: FileList | null) {
    const incoming = [...(list ?? [])];
    if (incoming.length === 0) return;
    const replacing = maxFiles === 1;
    const current = replacing ? [] : files.map((p) => p.file);
    const why = refusal(current, incoming, limits, maxFiles);
    setMessage(why ?? '');
    if (why) return;
    const picked = incoming.map((file) => ({ id: nextId++, file }));
    onChange(replacing ? picked : [...files, ...picked]);
  }

  function move(index: number, to: number) {
    if (to < 0 || to >= files.length) return;
    const next = [...files];
    const [item] = next.splice(index, 1);
    if (item) next.splice(to, 0, item);
    onChange(next);
  }

  return (
    <div class="files">
      <fieldset
        class={over ? 'drop over' : 'drop'}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          if (dragged === null) add(e.dataTransfer?.files ?? null);
        }}
      >
        <legend class="sr">Files</legend>
        <label for="file-input">
          Drop {maxFiles === 1 ? 'a file' : 'files'} here or choose {maxFiles === 1 ? 'one' : 'them'}
        </label>
        <input
          id="file-input"
          type="file"
          multiple={maxFiles > 1}
          accept={accepts.join(',')}
          aria-describedby="file-help"
          onChange={(e) => {
            const input = e.target as HTMLInputElement;
            add(input.files);
            input.value = '';
          }}
        />
        <p id="file-help" class="hint">
          Accepts {accepts.join(', ')}; up to {bytes(limits.max_file_bytes)} a file on the {limits.plan} plan.
        </p>
      </fieldset>
      {message && (
        <p class="error" role="alert">
          {message}
        </p>
      )}
      {files.length > 0 && (
        <ol class="file-list" aria-label="Chosen files, in order">
          {files.map((picked, index) => (
            <li
              key={picked.id}
              draggable={files.length > 1}
              onDragStart={() => setDragged(index)}
              onDragEnd={() => setDragged(null)}
              onDrop={(e) => {
                e.preventDefault();
                if (dragged !== null) move(dragged, index);
                setDragged(null);
              }}
              onDragOver={(e) => e.preventDefault()}
            >
              <span class="name">{picked.file.name}</span>
              <span class="muted">{bytes(picked.file.size)}</span>
              {picked.sent !== undefined && (
                <progress
                  max={picked.file.size}
                  value={picked.sent}
                  aria-label={`Upload of ${picked.file.name}`}
                />
              )}
              {files.length > 1 && (
                <>
                  <button type="button" onClick={() => move(index, index - 1)} disabled={index === 0}>
                    Up<span class="sr"> {picked.file.name}</span>
                  </button>
                  <button
                    type="button"
                    onClick={() => move(index, index + 1)}
                    disabled={index === files.length - 1}
                  >
                    Down<span class="sr"> {picked.file.name}</span>
                  </button>
                </>
              )}
              <button type="button" onClick={() => onChange(files.filter((f) => f.id !== picked.id))}>
                Remove<span class="sr"> {picked.file.name}</span>
              </button>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
