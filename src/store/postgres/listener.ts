// LISTEN for job changes made by other processes, on a connection of its own (a pooled connection
// cannot stay subscribed). Notices only speed things up: workers still poll and running jobs still
// check their leases, so a notice lost while reconnecting delays work by one poll, never loses it.
import pg from 'pg';
import type { JobChangeNotice } from '../../model/job-change.js';
import { pgTypes } from './connection.js';
import { CHANGES_CHANNEL, type ChangePayload } from './notices.js';

const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

/** `onQueued` hears of the changes that queued webhook messages (the notice says so). */
export async function listenForChanges(
  url: string,
  origin: string,
  listener: (change: JobChangeNotice) => void,
  onQueued: () => void = () => undefined,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let delay = RECONNECT_MIN_MS;
  let retry: NodeJS.Timeout | undefined;

  const onNotification = (message: pg.Notification) => {
    if (message.channel !== CHANGES_CHANNEL || !message.payload) return;
    let payload: ChangePayload;
    try {
      payload = JSON.parse(message.payload) as ChangePayload;
    } catch {
      return;
    }
    if (payload.origin === origin) return;
    listener({ jobId: payload.jobId, kind: payload.kind });
    if (payload.webhooks === true) onQueued();
  };

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url, types: pgTypes, application_name: 'quire-listen' });
    next.on('notification', onNotification);
    next.on('error', () => reconnect(next));
    next.on('end', () => reconnect(next));
    await next.connect();
    await next.query(`LISTEN ${CHANGES_CHANNEL}`);
    client = next;
    delay = RECONNECT_MIN_MS;
  };

  const reconnect = (failed: pg.Client) => {
    if (stopped || client !== failed) return;
    client = undefined;
    failed.removeAllListeners();
    failed.on('error', () => undefined);
    void failed.end().catch(() => undefined);
    const attempt = () => {
      retry = undefined;
      if (stopped) return;
      connect().catch(() => {
        delay = Math.min(delay * 2, RECONNECT_MAX_MS);
        retry = setTimeout(attempt, delay);
        retry.unref();
      });
    };
    retry = setTimeout(attempt, delay);
    retry.unref();
  };

  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    const current = client;
    client = undefined;
    if (current) {
      current.removeAllListeners();
      current.on('error', () => undefined);
      await current.end().catch(() => undefined);
    }
  };
}
