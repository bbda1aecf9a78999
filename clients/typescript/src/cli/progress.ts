// What quirectl shows while it works: on a terminal, cli-progress bars (upload: bytes and rate; job:
// percent and step); elsewhere plain lines; with --json nothing but errors on stderr.
import cliProgress from 'cli-progress';
import type { JobProgress } from '../wait.js';

export interface Reporter {
  upload(label: string, sent: number, total: number): void;
  job(label: string, progress: JobProgress): void;
  stop(): void;
}

const mib = (bytes: number) =>
  bytes >= 1048576 ? `${(bytes / 1048576).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;

function stepText(progress: JobProgress): string {
  return progress.step
    ? `step ${progress.step.index + 1}/${progress.step.count} ${progress.step.tool}`
    : progress.status;
}

/** Two bars per input on a TTY, drawn on stderr so stdout stays the results. */
function barReporter(): Reporter {
  const bars = new cliProgress.MultiBar(
    {
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: false,
      format: '{label} {bar} {percentage}% | {info}',
    },
    cliProgress.Presets.shades_classic,
  );
  const uploads = new Map<string, { bar: cliProgress.SingleBar; started: number }>();
  const jobs = new Map<string, cliProgress.SingleBar>();
  return {
    upload(label, sent, total) {
      let entry = uploads.get(label);
      if (!entry) {
        entry = { bar: bars.create(total, 0, { label: `${label} upload`, info: '' }), started: Date.now() };
        uploads.set(label, entry);
      }
      const seconds = Math.max((Date.now() - entry.started) / 1000, 0.001);
      entry.bar.setTotal(total);
      entry.bar.update(sent, { info: `${mib(sent)} of ${mib(total)}, ${mib(sent / seconds)}/s` });
    },
    job(label, progress) {
      let bar = jobs.get(label);
      if (!bar) {
        bar = bars.create(100, 0, { label: `${label} job   `, info: '' });
        jobs.set(label, bar);
      }
      bar.update(progress.percent, { info: stepText(progress) });
    },
    stop: () => bars.stop(),
  };
}

/** One line per change worth saying: each quarter of an upload, each new status, step or tenth. */
function lineReporter(): Reporter {
  const said = new Map<string, string>();
  const say = (label: string, kind: string, text: string) => {
    if (said.get(label + kind) === text) return;
    said.set(label + kind, text);
    process.stderr.write(`${label}: ${text}\n`);
  };
  return {
    upload(label, sent, total) {
      const quarter = total > 0 ? Math.floor((sent / total) * 4) * 25 : 100;
      say(label, 'upload', `uploaded ${quarter}%`);
    },
    job(label, progress) {
      say(label, 'job', `${stepText(progress)} ${Math.floor(progress.percent / 10) * 10}%`);
    },
    stop: () => {},
  };
}

const silent: Reporter = { upload() {}, job() {}, stop() {} };

export function reporterFor(options: { json: boolean; tty: boolean }): Reporter {
  if (options.json) return silent;
  return options.tty ? barReporter() : lineReporter();
}
