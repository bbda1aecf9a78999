// The line buffer the runner fills and an engine drains: bounded, dropping and counting the oldest.
import { describe, expect, it } from 'vitest';
import { LineBuffer } from '../../src/process/line-buffer.js';

describe('LineBuffer', () => {
  it('keeps the last lines up to its capacity, dropping the oldest and counting them', () => {
    const lines = new LineBuffer(3);
    for (const n of [1, 2, 3, 4, 5]) lines.push(`line ${n}`);
    expect(lines.dropped).toBe(2);
    expect(lines.drain()).toEqual(['line 3', 'line 4', 'line 5']);
    expect(lines.drain()).toEqual([]);
    expect(new LineBuffer().capacity).toBe(256);
  });

  it('keeps only the lines its pattern matches, so every dropped line was one of them', () => {
    const lines = new LineBuffer(2, /100%$/);
    for (const line of ['0%', '100%', '50%', '100%', '100%']) lines.push(line);
    expect(lines.dropped).toBe(1);
    expect(lines.drain()).toEqual(['100%', '100%']);
  });

  it('hands a waiting reader the next line, and undefined once the stream has ended', async () => {
    const lines = new LineBuffer();
    const next = lines.next();
    lines.push('first');
    expect(await next).toBe('first');
    lines.push('second');
    expect(await lines.next()).toBe('second');
    const last = lines.next();
    lines.end();
    expect(await last).toBeUndefined();
  });

  it('waits for a given line, or says the stream ended without it', async () => {
    const ready = new LineBuffer();
    const waiting = ready.until('ready');
    ready.push('starting');
    ready.push('ready');
    expect(await waiting).toBe(true);
    const never = new LineBuffer();
    const waited = never.until('ready');
    never.push('crashed');
    never.end();
    expect(await waited).toBe(false);
  });
});
