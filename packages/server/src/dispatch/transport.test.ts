import { afterEach, describe, expect, it } from 'vitest';
import type { TaskDispatcher } from '@weft/broker';
import { MemoryRoutesStore } from '@weft/store/memory';
import { Router } from '@weft/router';
import type { LocalInvoker } from '@weft/sdk';
import { refreshOnce, transportOf, type TransportPlaces } from './transport.js';

/**
 * The one dispatch decision, on a real routing table (in memory, no health checks): broker,
 * router, published plugin, or nothing after one read of the table through.
 */

const routers: Router[] = [];
afterEach(async () => {
  for (const router of routers.splice(0)) await router.close();
});

/** A router on `store` (another replica when two share one). */
async function routerOn(store: MemoryRoutesStore): Promise<Router> {
  const router = new Router({
    store,
    healthChecks: false,
    openExecute: true,
    egressAllowlist: ['127.0.0.0/8'],
  });
  routers.push(router);
  await router.start();
  return router;
}

/** Registers an instance of `echo` serving `actions`, by broker when `broker`. */
async function register(router: Router, id: string, actions: string[], broker = false) {
  await router.register({
    plugin_slug: 'echo',
    version: '1.0.0',
    url: `http://127.0.0.1:9/${id}`,
    actions,
    metadata: { instance_id: id, ...(broker ? { transport: 'broker' } : {}) },
  });
}

const invoker = {} as LocalInvoker;
const tasks = {} as TaskDispatcher;

/** Places over `router`, with a published `echo` when `published` and a broker when `withTasks`. */
function places(router: Router, published = false, withTasks = true): TransportPlaces {
  return {
    router,
    tasks: withTasks ? tasks : undefined,
    published: {
      listed: async (slug) => published && slug === 'echo',
      invoker: async (slug) => (published && slug === 'echo' ? invoker : undefined),
    },
  };
}

/** A refresh that counts how often the table was read through. */
function counted(router: Router) {
  const once = refreshOnce(router);
  const counter = {
    reads: 0,
    refresh: async () => {
      const read = await once();
      if (read) counter.reads++;
      return read;
    },
  };
  return counter;
}

describe('transportOf', () => {
  it('sends an action by router when an HTTP instance serves it, even beside broker ones', async () => {
    const router = await routerOn(new MemoryRoutesStore());
    await register(router, 'b', ['say'], true);
    await register(router, 'h', ['say']);
    const question = { slug: 'echo', action: 'say' };
    expect(await transportOf(places(router), question, counted(router).refresh)).toEqual({
      via: 'router',
    });
  });

  it('sends it by broker when every instance serving it takes tasks, and a broker is set', async () => {
    const router = await routerOn(new MemoryRoutesStore());
    await register(router, 'b', ['say'], true);
    await register(router, 'h', ['other']);
    const question = { slug: 'echo', action: 'say' };
    expect(await transportOf(places(router), question, counted(router).refresh)).toEqual({
      via: 'broker',
      tasks,
    });
    // Without a broker, the router calls the broker instance's URL.
    const noBroker = places(router, false, false);
    expect(await transportOf(noBroker, question, counted(router).refresh)).toEqual({
      via: 'router',
    });
  });

  it('ignores unhealthy HTTP instances when deciding for the broker', async () => {
    const router = await routerOn(new MemoryRoutesStore());
    await register(router, 'b', ['say'], true);
    await register(router, 'h', ['say']);
    router.table.setHealth('echo', 'h', 'unhealthy');
    const question = { slug: 'echo', action: 'say' };
    expect((await transportOf(places(router), question, counted(router).refresh))?.via).toBe(
      'broker',
    );
  });

  it('falls back to a published plugin, with its invoker, after reading the table once', async () => {
    const router = await routerOn(new MemoryRoutesStore());
    const question = { slug: 'echo', action: 'say' };
    const published = counted(router);
    expect(await transportOf(places(router, true), question, published.refresh)).toEqual({
      via: 'published',
      invoker,
    });
    expect(published.reads).toBe(0);
    const none = counted(router);
    expect(await transportOf(places(router), question, none.refresh)).toBeUndefined();
    expect(none.reads).toBe(1);
  });

  it('finds an instance another replica registered a moment ago by reading the table through', async () => {
    const store = new MemoryRoutesStore();
    const here = await routerOn(store);
    const there = await routerOn(store);
    await register(there, 'h', ['say']);
    expect(here.table.instancesOf('echo')).toHaveLength(0);
    const refresh = counted(here);
    const question = { slug: 'echo', action: 'say' };
    expect(await transportOf(places(here), question, refresh.refresh)).toEqual({ via: 'router' });
    expect(refresh.reads).toBe(1);
  });

  it('without an action (before a run), counts any instance and any published version', async () => {
    const router = await routerOn(new MemoryRoutesStore());
    await register(router, 'h', ['other']);
    const refresh = counted(router);
    expect(await transportOf(places(router), { slug: 'echo' }, refresh.refresh)).toBeTruthy();
    expect(await transportOf(places(router, true), { slug: 'gone' }, refresh.refresh)).toBe(
      undefined,
    );
    const empty = await routerOn(new MemoryRoutesStore());
    expect(await transportOf(places(empty, true), { slug: 'echo' }, refresh.refresh)).toEqual({
      via: 'published',
    });
    // One read through for the whole batch.
    expect(refresh.reads).toBe(1);
  });
});
