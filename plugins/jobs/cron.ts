import { Cron } from 'croner';
import { JOB_ERRORS } from './errors.js';

/**
 * A job schedule, parsed by croner (never by hand). Used only as a calculator: the scheduler
 * keeps its own timer, so a paused Cron never fires anything.
 *
 * Patterns have 5 fields (minute precision) or 6 (seconds first); nicknames such as `@hourly`
 * are accepted. Croner would also take an ISO date as a one-off run: refused, a job that runs
 * once is a manual run. Times are in the process's local time zone.
 */
export function parseSchedule(schedule: unknown, path = 'schedule'): Cron {
  if (typeof schedule !== 'string' || schedule.trim() === '') {
    throw JOB_ERRORS.jobInvalid('A job schedule is a cron pattern such as "*/5 * * * *" or "0 0 3 * * *".', { path });
  }
  let cron: Cron;
  try {
    cron = new Cron(schedule, { paused: true, mode: '5-or-6-parts' });
  } catch (cause) {
    throw JOB_ERRORS.jobInvalid(`The schedule ${JSON.stringify(schedule)} is not a cron pattern: ${(cause as Error).message}`, {
      path,
      cause,
    });
  }
  if (cron.getPattern() === undefined) {
    throw JOB_ERRORS.jobInvalid(`The schedule ${JSON.stringify(schedule)} is a date, not a cron pattern; run a one-off job by hand.`, { path });
  }
  if (cron.nextRun() === null) {
    throw JOB_ERRORS.jobInvalid(`The schedule ${JSON.stringify(schedule)} never fires (a date that does not exist?).`, { path });
  }
  return cron;
}

