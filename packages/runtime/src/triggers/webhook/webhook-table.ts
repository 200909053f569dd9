import type { CompiledWebhook } from './compile-webhook.js';

/**
 * The webhooks currently served, by `METHOD path`. Deployments replace a workflow's webhooks as
 * a whole; a route served by another workflow is a collision the deployment must refuse first.
 */
export class WebhookTable {
  private readonly routes = new Map<string, CompiledWebhook>();
  private readonly byWorkflow = new Map<string, string[]>();
  /** Routes of workflows deployed but not servable here (their secret is missing), by key. */
  private readonly unservable = new Map<string, string>();

  /** The webhook answering `method path`, if any. */
  find(method: string, path: string): CompiledWebhook | undefined {
    return this.routes.get(`${method} ${path}`);
  }

  /**
   * The workflow whose webhook would answer `method path` but cannot be served by this process
   * (a stored deployment whose secret this process lacks), if any.
   */
  unavailable(method: string, path: string): string | undefined {
    return this.unservable.get(`${method} ${path}`);
  }

  /**
   * Notes that `workflow` is deployed with webhooks at `keys` this process cannot serve, so that
   * they answer 503 instead of 404; a route served by a workflow is left alone.
   */
  markUnservable(workflow: string, keys: readonly string[]): void {
    this.forgetUnservable(workflow);
    for (const key of keys) if (!this.routes.has(key)) this.unservable.set(key, workflow);
  }

  /** Forgets the routes {@link markUnservable} noted for `workflow`. */
  forgetUnservable(workflow: string): void {
    for (const [key, owner] of this.unservable) if (owner === workflow) this.unservable.delete(key);
  }

  /**
   * Routes of `hooks` already served by a deployment other than `workflow` (a deployment key),
   * with the key of the one serving each.
   */
  collisions(workflow: string, keys: readonly string[]): { route: string; workflow: string }[] {
    const out: { route: string; workflow: string }[] = [];
    for (const key of keys) {
      const owner = this.routes.get(key)?.deployment;
      if (owner !== undefined && owner !== workflow) out.push({ route: key, workflow: owner });
    }
    return out;
  }

  /**
   * Serves `hooks` for `workflow` (the deployment's key, `owner/name`), replacing the webhooks it
   * had.
   */
  replace(workflow: string, hooks: readonly CompiledWebhook[]): void {
    this.remove(workflow);
    for (const hook of hooks) {
      this.routes.set(hook.key, { ...hook, deployment: workflow });
      this.unservable.delete(hook.key);
    }
    this.byWorkflow.set(
      workflow,
      hooks.map((h) => h.key),
    );
  }

  /** Stops serving the webhooks of `workflow`. */
  remove(workflow: string): void {
    this.forgetUnservable(workflow);
    for (const key of this.byWorkflow.get(workflow) ?? []) {
      if (this.routes.get(key)?.deployment === workflow) this.routes.delete(key);
    }
    this.byWorkflow.delete(workflow);
  }

  /** `METHOD /hooks/path` of every webhook of `workflow`. */
  routesOf(workflow: string): string[] {
    return (this.byWorkflow.get(workflow) ?? []).map((key) => {
      const space = key.indexOf(' ');
      return `${key.slice(0, space)} /hooks${key.slice(space + 1)}`;
    });
  }
}
