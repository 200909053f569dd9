import type {
  DeregistrationResponse,
  RegistrationResponse,
  RouterRegistration,
  RoutesResponse,
} from '@weft/core';
import { Dispatcher } from './dispatch.js';
import { HealthChecker } from './health-checker.js';
import type { FastifyInstance } from 'fastify';
import { installExecuteFastPath, type ExecuteFastPath } from './http/fast-execute.js';
import { routerRoutes } from './http/routes.js';
import { compileRouterOptions, type CompiledRouterOptions, type RouterOptions } from './options.js';
import { checkRegistration } from './registration.js';
import { RoutingTable } from './table.js';

/** The part of a Fastify app {@link Router.fastPath} uses. */
type FastifyApp = Pick<FastifyInstance, 'server' | 'log' | 'findRoute'>;

/**
 * The router (docs/router.md#registration, docs/router.md#health-checks, docs/router.md#endpoints, docs/design.md#router): the routing table kept in a
 * `RoutesStore`, this replica's cached copy of it, the health checker and dispatch. Mount its
 * routes with `app.register(router.plugin())`, then {@link start} it; {@link close} it after the
 * HTTP server.
 */
export class Router {
  readonly options: CompiledRouterOptions;
  readonly table: RoutingTable;
  readonly dispatcher: Dispatcher;
  readonly health: HealthChecker;
  private started = false;

  constructor(options: RouterOptions, onError?: (error: unknown) => void) {
    this.options = compileRouterOptions(options);
    this.table = new RoutingTable(this.options);
    this.dispatcher = new Dispatcher(this.table, this.options);
    this.health = new HealthChecker(this.table, this.options, onError);
  }

  /** The Fastify plugin with the router's routes. */
  plugin() {
    return routerRoutes(this);
  }

  /**
   * Answers plain `POST /execute` and `POST /{plugin_slug}/execute` calls on the app's server
   * before the app (with {@link plugin} registered) sees them (see
   * {@link installExecuteFastPath}); the plugin's routes stay for every other case and for the
   * OpenAPI document. A `/<slug>/execute` path the app routes elsewhere (`/actions/execute`)
   * stays the app's. `disable()` it when the app starts closing.
   */
  fastPath(app: FastifyApp): ExecuteFastPath {
    return installExecuteFastPath(app.server, this, app.log, (url) => {
      const found = app.findRoute({ method: 'POST', url });
      return found !== null && found.params['plugin_slug'] !== undefined;
    });
  }

  /** Loads the table and starts the health checker (unless `healthChecks: false`). */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.table.start();
    if (this.options.healthChecks) this.health.start();
  }

  /** Stops health checks and refreshes and closes connections to instances. */
  async close(): Promise<void> {
    await this.health.stop();
    await this.table.close();
  }

  /** `POST /register`: validates, stores and answers the registration record (docs/router.md#registration); `created` is false on re-registration. */
  async register(
    record: RouterRegistration,
  ): Promise<{ created: boolean; answer: RegistrationResponse }> {
    const registration = await checkRegistration(record, this.options, this.options.clock.now());
    const { created, instance } = await this.options.store.register(registration);
    await this.table.refresh();
    return {
      created,
      answer: {
        status: 'registered',
        plugin_slug: instance.plugin_slug,
        instance_id: instance.instance_id,
        registered_at: instance.registered_at,
      },
    };
  }

  /** `DELETE /register/...`: undefined when the instance is not in the table. */
  async deregister(
    pluginSlug: string,
    instanceId: string,
  ): Promise<DeregistrationResponse | undefined> {
    const removed = await this.options.store.deregister(pluginSlug, instanceId);
    if (!removed) return undefined;
    await this.table.refresh();
    return {
      status: 'deregistered',
      plugin_slug: pluginSlug,
      instance_id: instanceId,
      deregistered_at: new Date(this.options.clock.now()).toISOString(),
    };
  }

  /** `GET /routes`: the table as stored, with this replica's calls in flight. */
  async routes(): Promise<RoutesResponse> {
    const instances = await this.options.store.list();
    return {
      instances: instances.map((i) => ({
        plugin_slug: i.plugin_slug,
        instance_id: i.instance_id,
        version: i.version,
        url: i.url,
        actions: i.actions,
        health_check_url: i.health_check_url,
        region: i.region,
        registered_at: i.registered_at,
        health: i.health,
        last_check_at: i.last_check_at,
        last_error: i.last_error,
        consecutive_failures: i.consecutive_failures,
        in_flight: this.table.inFlight(i.plugin_slug, i.instance_id),
      })),
    };
  }
}
