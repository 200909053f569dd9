import type { DeployImpact } from '@weft/core';
import { upcomingFires } from '../../triggers/schedule/schedule.js';

/**
 * The triggers added and removed from the definition `old` (raw, as deployed; undefined on a
 * first deploy) to `next`, each as one line (`schedule 0 9 * * * UTC`, `webhook POST /orders`,
 * `event nats orders.created`), and the next schedule fires of both at `nowMs`.
 */
export function diffTriggers(
  old: Record<string, unknown> | undefined,
  next: Record<string, unknown>,
  nowMs: number,
): Pick<DeployImpact, 'triggers' | 'next_fires'> {
  const before = (old ? triggersOf(old) : []).map(describeTrigger);
  const after = triggersOf(next).map(describeTrigger);
  return {
    triggers: {
      added: after.filter((t) => !before.includes(t)),
      removed: before.filter((t) => !after.includes(t)),
    },
    next_fires: {
      before: old ? upcomingFires(old, nowMs) : [],
      after: upcomingFires(next, nowMs),
    },
  };
}

function triggersOf(definition: Record<string, unknown>): Record<string, unknown>[] {
  const triggers = definition['triggers'];
  return Array.isArray(triggers)
    ? triggers.filter((t): t is Record<string, unknown> => typeof t === 'object' && t !== null)
    : [];
}

/** One line naming a trigger by what makes it fire. */
function describeTrigger(trigger: Record<string, unknown>): string {
  const text = (key: string) => (typeof trigger[key] === 'string' ? String(trigger[key]) : '');
  switch (trigger['type']) {
    case 'schedule':
      return `schedule ${text('cron').trim()} ${text('timezone') || 'UTC'}`;
    case 'webhook':
      return `webhook ${text('method') || 'POST'} ${text('path')}`;
    case 'event':
      return `event ${text('source')} ${text('topic') || text('subject') || text('queue')}`.trim();
    default:
      return String(trigger['type']);
  }
}
