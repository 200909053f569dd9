import { ACTION_PATTERN, SLUG_PATTERN, ValidationError, type ExecutionContext } from '@weft/core';

/**
 * An in-process action handler (the `function` kind): gets the validated action input and the
 * execution context (docs/protocol.md#execution-context), returns the output (or a promise of it). A `WeftError` it throws keeps
 * its code; any other exception becomes `BACKEND_ERROR`. Long work should watch
 * `context.signal`, which is aborted when the attempt times out or the run is canceled.
 */
export type ActionHandler<Input = Record<string, unknown>, Output = unknown> = (
  input: Input,
  context: ExecutionContext,
) => Output | Promise<Output>;

const PLUGIN = new RegExp(SLUG_PATTERN);
const ACTION = new RegExp(ACTION_PATTERN);

/** The two halves of a handler key `<plugin>.<action>`. */
export interface HandlerKey {
  plugin: string;
  action: string;
}

/**
 * Splits and checks a handler key `<plugin>.<action>` (plugin: lowercase letters, digits, `_`
 * and `-`; action: a letter or `_`, then letters, digits, `_` or `-`). Throws `VALIDATION`.
 */
export function parseHandlerKey(key: string): HandlerKey {
  const dot = key.indexOf('.');
  const plugin = dot < 0 ? '' : key.slice(0, dot);
  const action = dot < 0 ? '' : key.slice(dot + 1);
  if (!PLUGIN.test(plugin) || !ACTION.test(action)) {
    throw new ValidationError(
      `invalid handler key "${key}": expected <plugin>.<action>, e.g. "slack.send_message"`,
      { field: 'handler', constraint: 'pattern' },
    );
  }
  return { plugin, action };
}

/** A handler found on an object by {@link handler}. */
export interface DecoratedHandler {
  key: string;
  fn: ActionHandler;
}

const decorated = new WeakMap<object, DecoratedHandler[]>();

/**
 * TC39 method decorator (TypeScript 5 decorators, not `experimentalDecorators`) marking a
 * method as the handler of `<plugin>.<action>`:
 *
 * ```ts
 * class Slack {
 *   @handler('slack.send') async send(input: { text: string }, context: ExecutionContext) { ... }
 * }
 * invoker.registerHandlers(new Slack());
 * ```
 *
 * The decorator only records the method, bound to its instance (or to the class, for a static
 * method); `registerHandlers(instance)` registers them. Registering by hand with
 * `registerHandler` is the primary path; this is sugar over it. The key is checked at once.
 */
export function handler(key: string) {
  parseHandlerKey(key);
  return function decorate<This extends object>(
    method: (this: This, input: never, context: ExecutionContext) => unknown,
    context: ClassMethodDecoratorContext<This>,
  ): void {
    context.addInitializer(function (this: This) {
      const list = decorated.get(this) ?? [];
      list.push({ key, fn: method.bind(this) as unknown as ActionHandler });
      decorated.set(this, list);
    });
  };
}

/** The handlers recorded by {@link handler} on an instance (or a class, for static methods). */
export function decoratedHandlers(target: object): readonly DecoratedHandler[] {
  return decorated.get(target) ?? [];
}
