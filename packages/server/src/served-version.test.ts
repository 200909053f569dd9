import { describe, expect, it } from 'vitest';
import { checkRegistration, Router } from '@weft/router';
import { MemoryRoutesStore } from '@weft/store/memory';
import { servedVersionOf } from './server-agents.js';

// The version an agent tool's schema is read for is the one the router's instances serve; an
// instance another replica registered a moment ago is not in this replica's copy of the table
// yet, so a miss reads the store before falling back to the latest published version.
describe('servedVersionOf', () => {
  it('reads the store through when its copy of the table has no instance', async () => {
    const store = new MemoryRoutesStore();
    const router = new Router({
      store,
      healthChecks: false,
      openExecute: true,
      refreshMs: 3_600_000,
    });
    await router.start();
    try {
      const served = servedVersionOf(router);
      expect(await served('crm', 'lookup')).toBeUndefined();
      for (const [id, version] of [
        ['a', '1.2.0'],
        ['b', '1.10.0'],
      ]) {
        await store.register(
          await checkRegistration(
            {
              plugin_slug: 'crm',
              version,
              url: `http://127.0.0.1:1/${id}`,
              actions: ['lookup'],
              metadata: { instance_id: id },
            } as never,
            router.options,
            Date.now(),
          ),
        );
      }
      expect(router.table.instancesOf('crm')).toHaveLength(0);
      expect(await served('crm', 'lookup')).toBe('1.10.0');
      expect(await served('crm', 'other')).toBeUndefined();
    } finally {
      await router.close();
    }
  });
});
