import { describe, expect, it } from 'vitest';
import { type ScheduleTrigger } from '@weft/core';
import { MemoryTriggerStore } from '@weft/store/memory';
import { ManualClock, pendingRecordOf, RecordingStarter, workflowWith } from '../test-support.js';
import { compileSchedule, dueFires, nextFireAfter, upcomingFires } from './schedule.js';
import { Scheduler } from './scheduler.js';

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const at = (text: string) => Date.parse(text);

function schedule(cron: string, timezone?: string, catchup?: ScheduleTrigger['catchup']) {
  const trigger: ScheduleTrigger = {
    type: 'schedule',
    cron,
    ...(timezone ? { timezone } : {}),
    ...(catchup ? { catchup } : {}),
  };
  return compileSchedule(workflowWith('nightly', [trigger]), trigger, 0);
}

/** Every fire of `cron` in `zone` from `from` for `hours`, ticking a scheduler once a minute. */
async function firesOver(cron: string, zone: string, from: string, hours: number) {
  const clock = new ManualClock(at(from));
  const starter = new RecordingStarter();
  const scheduler = new Scheduler({ store: new MemoryTriggerStore(), start: starter.start, clock });
  await scheduler.register('nightly', [schedule(cron, zone)]);
  for (let minute = 0; minute < hours * 60; minute++) {
    clock.advance(60_000);
    await scheduler.tick();
  }
  return starter.requests.map((r) => (r.trigger.payload as { scheduled_at: string }).scheduled_at);
}

describe('schedule fire times', () => {
  it('reads 5 fields (minute first) and 6 fields (seconds first)', () => {
    expect(iso(nextFireAfter(schedule('0 9 * * 1-5'), at('2026-06-05T10:00:00Z')))).toBe(
      '2026-06-08T09:00:00.000Z',
    );
    expect(iso(nextFireAfter(schedule('30 0 9 * * *'), at('2026-06-05T10:00:00Z')))).toBe(
      '2026-06-06T09:00:30.000Z',
    );
  });

  it('evaluates the expression in the IANA time zone and stores UTC instants', () => {
    expect(
      iso(nextFireAfter(schedule('0 9 * * *', 'Europe/Berlin'), at('2026-01-10T00:00:00Z'))),
    ).toBe('2026-01-10T08:00:00.000Z');
    expect(
      iso(nextFireAfter(schedule('0 9 * * *', 'Europe/Berlin'), at('2026-07-10T00:00:00Z'))),
    ).toBe('2026-07-10T07:00:00.000Z');
    expect(
      iso(nextFireAfter(schedule('0 9 * * *', 'America/New_York'), at('2026-01-10T00:00:00Z'))),
    ).toBe('2026-01-10T14:00:00.000Z');
  });

  it('refuses a bad expression, a wrong field count and an unknown zone', () => {
    expect(() => schedule('61 * * * *')).toThrow(/invalid schedule/);
    expect(() => schedule('* * * *')).toThrow(/4 fields/);
    expect(() => schedule('* * * * * * *')).toThrow(/7 fields/);
    expect(() => schedule('0 9 * * *', 'Mars/Olympus')).toThrow(/unknown time zone/);
  });
});

describe('schedules across daylight-saving transitions (fake clock)', () => {
  it('Europe/Berlin spring gap: 02:30 runs once, at 03:00 CEST, the first valid instant after it', async () => {
    const fires = await firesOver('30 2 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', 48);
    expect(fires).toEqual(['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
  });

  it('Europe/Berlin autumn repeated hour: 02:30 runs once, at its first occurrence (CEST)', async () => {
    const fires = await firesOver('30 2 * * *', 'Europe/Berlin', '2026-10-24T12:00:00Z', 48);
    expect(fires).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('America/New_York spring gap: 02:15 runs once, at 03:00 EDT', async () => {
    const fires = await firesOver('15 2 * * *', 'America/New_York', '2026-03-07T12:00:00Z', 48);
    expect(fires).toEqual(['2026-03-08T07:00:00.000Z', '2026-03-09T06:15:00.000Z']);
  });

  it('America/New_York repeated hour: 01:30 runs once (EDT), 6-field form too', async () => {
    for (const cron of ['30 1 * * *', '0 30 1 * * *']) {
      const fires = await firesOver(cron, 'America/New_York', '2026-10-31T12:00:00Z', 48);
      expect(fires).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
    }
  });

  it('a list of fixed times is fixed too: runs once in the repeated hour', async () => {
    const fires = await firesOver('30 1,2 * * *', 'America/New_York', '2026-11-01T04:00:00Z', 4);
    expect(fires).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-01T07:30:00.000Z']);
  });

  it('interval schedules follow elapsed time: every 30 minutes through both passes of the hour', async () => {
    const fires = await firesOver('*/30 * * * *', 'Europe/Berlin', '2026-10-24T23:50:00Z', 2);
    expect(fires).toEqual([
      '2026-10-25T00:00:00.000Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-25T01:00:00.000Z',
      '2026-10-25T01:30:00.000Z',
    ]);
  });
});

describe('the next fires a deployment answer lists', () => {
  it('lists three per schedule trigger, across a daylight-saving change, and none for others', () => {
    const definition = {
      name: 'report',
      triggers: [
        { type: 'manual' },
        { type: 'schedule', cron: '0 9 * * *', timezone: 'Europe/Berlin' },
        { type: 'schedule', cron: '30 1 1 1 *' },
      ],
      steps: [],
    };
    expect(upcomingFires(definition, Date.parse('2026-03-27T12:00:00Z'))).toEqual([
      {
        trigger: 1,
        cron: '0 9 * * *',
        timezone: 'Europe/Berlin',
        at: ['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-03-30T07:00:00.000Z'],
      },
      {
        trigger: 2,
        cron: '30 1 1 1 *',
        timezone: 'UTC',
        at: ['2027-01-01T01:30:00.000Z', '2028-01-01T01:30:00.000Z', '2029-01-01T01:30:00.000Z'],
      },
    ]);
    expect(upcomingFires({ name: 'x', steps: [] }, 0)).toEqual([]);
  });
});

describe('catch-up after downtime', () => {
  const hourly = (catchup?: ScheduleTrigger['catchup']) => schedule('0 * * * *', 'UTC', catchup);
  const stored = at('2026-01-01T00:00:00Z');
  const now = at('2026-01-01T05:30:00Z');

  it('last (default) runs the latest missed fire once', () => {
    expect(dueFires(hourly(), stored, now)).toEqual({
      run: [at('2026-01-01T05:00:00Z')],
      skipped: 5,
      next: at('2026-01-01T06:00:00Z'),
    });
  });

  it('none runs nothing missed; all runs each, oldest first, bounded', () => {
    expect(dueFires(hourly('none'), stored, now).run).toEqual([]);
    expect(dueFires(hourly('all'), stored, now).run.map(iso)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T01:00:00.000Z',
      '2026-01-01T02:00:00.000Z',
      '2026-01-01T03:00:00.000Z',
      '2026-01-01T04:00:00.000Z',
      '2026-01-01T05:00:00.000Z',
    ]);
    const bounded = dueFires(hourly('all'), stored, now, { graceMs: 60_000, maxCatchup: 2 });
    expect(bounded.run.map(iso)).toEqual(['2026-01-01T04:00:00.000Z', '2026-01-01T05:00:00.000Z']);
    // Missed fires are looked up backwards, maxCatchup + 1 of them: the count is a lower bound.
    expect(bounded.skipped).toBeGreaterThanOrEqual(1);
  });

  it('an on-time fire runs under every policy and covers the missed ones under last', () => {
    const onTime = at('2026-01-01T05:00:30Z');
    expect(dueFires(hourly('none'), stored, onTime).run).toEqual([at('2026-01-01T05:00:00Z')]);
    expect(dueFires(hourly('last'), stored, onTime).run).toEqual([at('2026-01-01T05:00:00Z')]);
  });

  it('bounds the work of a long outage of a per-second schedule', () => {
    const result = dueFires(schedule('* * * * * *', 'UTC', 'all'), stored, stored + 86_400_000);
    // 100 missed (maxCatchup) plus the 61 on time within the 60 s grace.
    expect(result.run.length).toBe(161);
    expect(result.skipped).toBeGreaterThanOrEqual(1);
    expect(result.next).toBeGreaterThan(stored + 86_400_000);
  });

  it('a restarted scheduler catches up from the stored next fire', async () => {
    const store = new MemoryTriggerStore();
    const clock = new ManualClock(at('2026-01-01T00:30:00Z'));
    const first = new Scheduler({ store, start: new RecordingStarter().start, clock });
    await first.register('nightly', [hourly()]);
    expect(await store.getNextFire('nightly', '0:0 * * * *@UTC')).toBe(at('2026-01-01T01:00:00Z'));
    clock.ms = at('2026-01-01T04:10:00Z');
    const starter = new RecordingStarter();
    const second = new Scheduler({ store, start: starter.start, clock });
    await second.register('nightly', [hourly()]);
    await second.tick();
    expect(starter.requests.map((r) => r.trigger)).toEqual([
      { type: 'schedule', payload: { scheduled_at: '2026-01-01T04:00:00.000Z' } },
    ]);
    expect(await store.getNextFire('nightly', '0:0 * * * *@UTC')).toBe(at('2026-01-01T05:00:00Z'));
  });
});

describe('exactly once across replicas', () => {
  it('two schedulers sharing a store start each fire once', async () => {
    const store = new MemoryTriggerStore();
    const clock = new ManualClock(at('2026-01-01T00:00:30Z'));
    const starters = [new RecordingStarter(), new RecordingStarter()];
    const replicas = starters.map((s) => new Scheduler({ store, start: s.start, clock }));
    for (const r of replicas) await r.register('nightly', [schedule('* * * * *')]);
    for (let i = 0; i < 10; i++) {
      clock.advance(60_000);
      await Promise.all(replicas.map((r) => r.tick()));
    }
    const all = starters.flatMap((s) =>
      s.requests.map((r) => (r.trigger.payload as { scheduled_at: string }).scheduled_at),
    );
    expect(all).toHaveLength(10);
    expect(new Set(all).size).toBe(10);
  });

  it('a fire whose start fails is logged and not retried', async () => {
    const store = new MemoryTriggerStore();
    const clock = new ManualClock(at('2026-01-01T00:00:30Z'));
    const starter = new RecordingStarter();
    starter.failWith = new Error('down');
    const errors: string[] = [];
    const scheduler = new Scheduler({
      store,
      start: starter.start,
      clock,
      logger: { info() {}, warn() {}, error: (_o, m) => errors.push(m) },
    });
    await scheduler.register('nightly', [schedule('* * * * *')]);
    clock.advance(60_000);
    expect(await scheduler.tick()).toEqual([]);
    expect(errors).toEqual(['schedule: could not start the execution']);
  });

  it('prepares the fires of an instant ahead of it and stores them at that instant', async () => {
    const clock = new ManualClock(at('2026-01-01T00:00:59.920Z'));
    const seen: string[] = [];
    const fired: { dueMs: number; firedMs: number }[] = [];
    const scheduler = new Scheduler({
      store: new MemoryTriggerStore(),
      start: () => Promise.reject(new Error('prepareStarts is used')),
      clock,
      prepareStarts: async (requests) => {
        seen.push(`prepare ${requests.length} at ${iso(clock.now())}`);
        return {
          commit: async () => {
            seen.push(`commit at ${iso(clock.now())}`);
            return requests.map((r, i) => ({
              status: 'fulfilled' as const,
              value: pendingRecordOf(`e${i}`, r.workflow.name, 'schedule'),
            }));
          },
        };
      },
      onFire: (fire) => fired.push(fire),
    });
    for (const name of ['a', 'b']) {
      const trigger: ScheduleTrigger = { type: 'schedule', cron: '* * * * *' };
      await scheduler.register(name, [compileSchedule(workflowWith(name, [trigger]), trigger, 0)]);
    }
    // Woken 80 ms ahead of 00:01: nothing is due yet on the clock.
    const due = at('2026-01-01T00:01:00Z');
    expect(await scheduler.tick(due)).toEqual([
      { workflow: 'a', fireAt: due },
      { workflow: 'b', fireAt: due },
    ]);
    expect(seen).toEqual([
      'prepare 2 at 2026-01-01T00:00:59.920Z',
      'commit at 2026-01-01T00:01:00.000Z',
    ]);
    expect(fired).toEqual(
      ['a', 'b'].map((workflow) => ({
        workflow,
        triggerId: '0:* * * * *@UTC',
        dueMs: due,
        firedMs: due,
      })),
    );
  });

  it('a fire that cannot be stored is logged; the others of its instant start', async () => {
    const clock = new ManualClock(at('2026-01-01T00:00:30Z'));
    const errors: unknown[] = [];
    const scheduler = new Scheduler({
      store: new MemoryTriggerStore(),
      start: () => Promise.reject(new Error('prepareStarts is used')),
      clock,
      logger: { info() {}, warn() {}, error: (o) => errors.push(o) },
      prepareStarts: async (requests) => ({
        commit: async () =>
          requests.map((r) =>
            r.workflow.name === 'bad'
              ? { status: 'rejected' as const, reason: new Error('disk full') }
              : {
                  status: 'fulfilled' as const,
                  value: pendingRecordOf('e', r.workflow.name, 'schedule'),
                },
          ),
      }),
    });
    for (const name of ['good', 'bad']) {
      const trigger: ScheduleTrigger = { type: 'schedule', cron: '* * * * *' };
      await scheduler.register(name, [compileSchedule(workflowWith(name, [trigger]), trigger, 0)]);
    }
    clock.advance(60_000);
    expect((await scheduler.tick()).map((f) => f.workflow)).toEqual(['good']);
    expect(errors).toMatchObject([{ workflow: 'bad', err: { message: 'disk full' } }]);
  });

  it('ticks on the real clock when started, storing no fire before its instant', async () => {
    const committed: { at: number; scheduledAt: number }[] = [];
    const scheduler = new Scheduler({
      store: new MemoryTriggerStore(),
      start: () => Promise.reject(new Error('prepareStarts is used')),
      prepareStarts: async (requests) => ({
        commit: async () => {
          const now = Date.now();
          return requests.map((r) => {
            const scheduledAt = (r.trigger.payload as { scheduled_at: string }).scheduled_at;
            committed.push({ at: now, scheduledAt: Date.parse(scheduledAt) });
            return {
              status: 'fulfilled' as const,
              value: pendingRecordOf('e', r.workflow.name, 'schedule'),
            };
          });
        },
      }),
    });
    scheduler.start();
    await scheduler.register('nightly', [schedule('* * * * * *')]);
    await new Promise((r) => setTimeout(r, 2200));
    await scheduler.stop();
    expect(committed.length).toBeGreaterThanOrEqual(1);
    for (const fire of committed) expect(fire.at).toBeGreaterThanOrEqual(fire.scheduledAt);
  });

  it('ticks on the real clock when started', async () => {
    const starter = new RecordingStarter();
    const scheduler = new Scheduler({ store: new MemoryTriggerStore(), start: starter.start });
    scheduler.start();
    await scheduler.register('nightly', [schedule('* * * * * *')]);
    await new Promise((r) => setTimeout(r, 2200));
    await scheduler.stop();
    expect(starter.requests.length).toBeGreaterThanOrEqual(1);
  });
});
