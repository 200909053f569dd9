import type {
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
} from 'kysely';
import { asStoreError } from './unavailable.js';

/**
 * `dialect` with every error of its driver passed through {@link asStoreError}, so that every
 * store built on Kysely reports a database it cannot reach as `UNAVAILABLE`, whatever the query.
 */
export function guardedDialect(dialect: Dialect): Dialect {
  return {
    createAdapter: (): DialectAdapter => dialect.createAdapter(),
    createQueryCompiler: (): QueryCompiler => dialect.createQueryCompiler(),
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    createIntrospector: (db: Kysely<any>): DatabaseIntrospector => dialect.createIntrospector(db),
    createDriver: (): Driver => guardAsync(dialect.createDriver(), guardConnection),
  };
}

function guardConnection(value: unknown): unknown {
  // `acquireConnection` answers the connection its queries run on.
  return typeof value === 'object' && value !== null && 'executeQuery' in value
    ? guardAsync(value as DatabaseConnection, (result) => result)
    : value;
}

/**
 * A view of `target` whose methods returning promises reject through {@link asStoreError}
 * (their results go through `map`); other members are left as they are.
 */
function guardAsync<T extends object>(target: T, map: (result: unknown) => unknown): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const member = Reflect.get(object, property, receiver) as unknown;
      if (typeof member !== 'function') return member;
      return (...args: unknown[]) => {
        const result = (member as (...a: unknown[]) => unknown).apply(object, args);
        if (!(result instanceof Promise)) return result;
        return result.then(map, (error: unknown) => {
          throw asStoreError(error);
        });
      };
    },
  });
}
