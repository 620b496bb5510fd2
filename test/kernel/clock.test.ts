import { Cron } from 'croner';
import { describe, expect, it } from 'vitest';
import { Attribute, Class, createStack, systemClock } from '../../index.js';
import { KEYS } from '../../kit/index.js';
import { Domain } from '../../plugins/domains/index.js';
import { VERIFY_AFTER_MS } from '../../engine/class-cache.js';
import { keyIdOf, PENDING_CLAIM_GRACE_MS } from '../../engine/indexes/primary-keys.js';
import { browser } from '../../plugins.config.js';
import { PENDING_GRACE_MS } from '../../plugins/domains/end-index.js';
import { DEFAULT_LEASE_MS } from '../../plugins/jobs/lock.js';
import type { JobFinishedEvent, JobHandler, JobRunDoc, JobStartedEvent, JobTickEvent } from '../../plugins/jobs/index.js';
import { RETENTION_SWEEP, retentionPlugin } from '../../plugins/retention/index.js';
import { ManualClock } from '../helpers/clock.js';
import { expectRefused, memoryStack, refusal, track, uniqueName } from '../helpers/stack.js';
import { gate, jobsPlugins, nextEvent } from '../plugins/jobs/helpers.js';

const DAY_MS = 86_400_000;

describe('the stack clock', () => {
  it('is the wall clock by default, the injected one otherwise (also in the container)', async () => {
    const plain = await memoryStack();
    expect(plain.clock).toBe(systemClock);
    const clock = new ManualClock(Date.UTC(2030, 5, 1));
    const stack = await memoryStack({ clock });
    expect(stack.clock).toBe(clock);
    expect(stack.container.resolve(KEYS.clock)).toBe(clock);
  });

  it('refuses a clock without now()', async () => {
    await expectRefused(createStack({ name: uniqueName(), adapter: 'memory', clock: {} as never }), 'DS_STACK_OPTIONS_INVALID', 'clock');
    await expectRefused(createStack({ name: uniqueName(), adapter: 'memory', clock: (() => 1) as never }), 'DS_STACK_OPTIONS_INVALID', 'clock');
  });

  it('stamps each stack with its own clock, interleaved (the kept last timestamp follows the clock asked)', async () => {
    const early = new ManualClock(Date.UTC(2030, 0, 1));
    const late = new ManualClock(Date.UTC(2031, 0, 1));
    const stacks = [await memoryStack({ clock: early }), await memoryStack({ clock: late })];
    for (const stack of stacks) await Class.create(stack, 'Note', 'class', '', { text: { type: 'string' } });
    const stamps: unknown[] = [];
    for (const i of [0, 1, 0, 0, 1]) stamps.push((await stacks[i].createDoc({ '~class': 'Note', text: 't' }))['~createTimestamp']);
    expect(stamps).toEqual(['2030-01-01T00:00:00.000Z', '2031-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z', '2031-01-01T00:00:00.000Z']);
    early.advance(1);
    expect((await stacks[0].createDoc({ '~class': 'Note', text: 't' }))['~createTimestamp']).toBe('2030-01-01T00:00:00.001Z');
  });

  it('stamps documents and classes with its time', async () => {
    const clock = new ManualClock(Date.UTC(2030, 5, 1, 12));
    const stack = await memoryStack({ clock });
    const notes = await Class.create(stack, 'Note', 'class', '', { text: { type: 'string' } });
    expect(notes.model['~createTimestamp']).toBe('2030-06-01T12:00:00.000Z');
    const doc = await stack.createDoc({ '~class': 'Note', text: 'a' });
    expect(doc['~createTimestamp']).toBe('2030-06-01T12:00:00.000Z');
    clock.advance(60_000);
    expect((await stack.updateDoc(doc._id, { text: 'b' }))['~updateTimestamp']).toBe('2030-06-01T12:01:00.000Z');
  });

  it('class cache: re-verifies a class changed by another writer once the lifetime has passed on the clock', async () => {
    const name = uniqueName('clock-cache');
    const clock = new ManualClock();
    const mine = track(await createStack({ name, adapter: 'memory', plugins: browser, clock }));
    const theirs = track(await createStack({ name, adapter: 'memory', plugins: browser }));
    await Class.create(mine, 'Score', 'class', '', { points: { type: 'integer' } });
    await mine.createDoc({ '~class': 'Score', points: 5 }); // the class is cached here now
    await Attribute.create(await theirs.getClass('Score'), 'level', 'integer', '', { min: 1 });
    expect(mine.changes.running).toBe(false); // no feed: only the lifetime brings the change

    // the clock stands still: however long the test takes, the cached model is trusted
    clock.advance(VERIFY_AFTER_MS - 1);
    expect(Object.keys((await mine.classCache.get('Score'))!.schema)).toEqual(['points']);
    clock.advance(1);
    expect(Object.keys((await mine.classCache.get('Score'))!.schema)).toEqual(['points', 'level']);
    expect((await refusal(mine.createDoc({ '~class': 'Score', level: 0 }))).code).toBe('DS_VALIDATION_RANGE');
  });

  it('primary keys: a pending claim is honoured for its grace period on the clock, then taken over', async () => {
    const clock = new ManualClock();
    const stack = await memoryStack({ clock });
    await Class.create(stack, 'Person', 'class', '', { code: { type: 'string', primaryKey: true } });
    const keyId = keyIdOf('Person', ['p1']);
    // a writer claimed the key and has not written its document yet
    await stack.primaryKeys.claim([{ keyId, docId: 'Person-being-written', className: 'Person', attributes: ['code'] }]);
    expect((await stack.storage.get<{ claimedAt: number }>(keyId))?.claimedAt).toBe(clock.now());

    clock.advance(PENDING_CLAIM_GRACE_MS - 1);
    await expectRefused(stack.createDoc({ '~class': 'Person', code: 'p1' }), 'DS_UNIQUE_VIOLATION');
    clock.advance(1); // past the grace: a crash leftover
    const doc = await stack.createDoc({ '~class': 'Person', code: 'p1' });
    expect(await stack.primaryKeys.lookup('Person', ['p1'])).toBe(doc._id);
  });

  it('domains: a pending relation end is honoured for its grace period on the clock', async () => {
    const clock = new ManualClock();
    const stack = await memoryStack({ clock });
    await Class.create(stack, 'Person', 'class');
    await Class.create(stack, 'Car', 'class');
    const owns = await Domain.create(stack, null, 'owns', 'domain', '1:1', 'Person', 'Car');
    const [ann, car, other] = [await stack.createDoc({ '~class': 'Person' }), await stack.createDoc({ '~class': 'Car' }), await stack.createDoc({ '~class': 'Car' })];
    // another writer added ann's one relation at its end and has not written the relation yet
    const pending = { relationId: '~rel-owns-being-written', otherId: other._id, at: clock.now() };
    await stack.storage.put({ _id: `_local/~rel/owns/source/${ann._id}`, entries: [pending] });

    clock.advance(PENDING_GRACE_MS - 1);
    await expectRefused(owns.addRelation(ann._id, car._id), 'DS_RELATION_CARDINALITY');
    clock.advance(1);
    expect(await owns.addRelation(ann._id, car._id)).toMatchObject({ sourceId: ann._id, targetId: car._id });
  });

  it('jobs: a lock whose holder froze expires by the clock, not by waiting a lease', async () => {
    const name = uniqueName('clock-lock');
    const clock = new ManualClock();
    const release = gate();
    const frozen: JobHandler = async () => {
      await release.promise;
      return 'late';
    };
    const a = track(await createStack({ name, adapter: 'memory', clock, plugins: jobsPlugins({ handlers: { work: frozen } }) }));
    const b = track(await createStack({ name, adapter: 'memory', clock, plugins: jobsPlugins({ handlers: { work: async () => 'done' } }) }));
    await a.jobs.define({ name: 'solo', handler: 'work', singleton: true });
    const started = nextEvent<JobStartedEvent>(a, 'job:started');
    const first = a.jobs.run('solo');
    await started; // a holds the lock; its renewals (every lease/3, real time) never come in this test

    clock.advance(DEFAULT_LEASE_MS - 1);
    expect((await b.jobs.run('solo')).status).toBe('SKIPPED');
    clock.advance(1); // the lease ran out on the clock
    expect(await b.jobs.run('solo')).toMatchObject({ status: 'SUCCESS', result: { value: 'done' } });
    release.open();
    expect((await first).status).toBe('SUCCESS');
  });

  it('jobs: a yearly schedule fires when the clock reaches its slot, and once only', async () => {
    const start = Date.UTC(2030, 5, 1);
    const clock = new ManualClock(start);
    const plugins = jobsPlugins({ jobs: { scheduler: true, tickMs: 20 }, handlers: { tick: async () => 'ok' } });
    const stack = track(await createStack({ name: uniqueName('clock-cron'), adapter: 'memory', clock, plugins }));
    await stack.jobs.define({ name: 'new-year', handler: 'tick', schedule: '0 0 1 1 *' });
    const slot = new Cron('0 0 1 1 *', { paused: true }).nextRun(new Date(start))!.getTime();
    const lookAt = (time: number) => nextEvent<JobTickEvent>(stack, 'job:tick', (t) => t.at === new Date(time).toISOString());

    clock.set(slot - 1);
    expect((await lookAt(slot - 1)).started).toEqual([]); // a look a hair before the slot: nothing due
    clock.set(slot + 10);
    const finished = nextEvent<JobFinishedEvent>(stack, 'job:finished');
    expect((await lookAt(slot + 10)).started).toEqual(['new-year']);
    const run = (await stack.getDocument((await finished).runId)) as JobRunDoc;
    expect(run).toMatchObject({ status: 'SUCCESS', trigger: 'schedule', scheduledFor: new Date(slot).toISOString() });
    expect(run.startedAt).toBe(new Date(slot + 10).toISOString());
    // the next look at the same time starts nothing: the next slot is a year away
    expect((await nextEvent<JobTickEvent>(stack, 'job:tick')).started).toEqual([]);
  });

  it('retention: documents are old by the clock', async () => {
    const start = Date.UTC(2030, 0, 1);
    const clock = new ManualClock(start);
    const stack = track(await createStack({ name: uniqueName('clock-sweep'), adapter: 'memory', clock, plugins: jobsPlugins({ extra: [retentionPlugin] }) }));
    await Class.create(stack, 'Log', 'class', '', { text: { type: 'string' } });
    const old = await stack.createDocs([{ '~class': 'Log', text: 'a' }, { '~class': 'Log', text: 'b' }]);
    clock.advance(10 * DAY_MS);
    const recent = await stack.createDoc({ '~class': 'Log', text: 'c' });
    await stack.jobs.define({ name: 'prune', handler: RETENTION_SWEEP, params: { className: 'Log', olderThanDays: 30 } });

    clock.set(start + 30 * DAY_MS); // exactly 30 days: not older yet
    expect(await stack.jobs.run('prune')).toMatchObject({ status: 'SUCCESS', result: { swept: 0 } });
    clock.advance(1);
    expect(await stack.jobs.run('prune')).toMatchObject({ status: 'SUCCESS', result: { swept: 2 } });
    expect((await stack.findDocuments('Log')).map((d) => d._id)).toEqual([recent._id]);
    expect((await stack.getDocument(old[0]._id, { includeInactive: true }))?.['~updateTimestamp']).toBe(new Date(start + 30 * DAY_MS + 1).toISOString());
  });
});
