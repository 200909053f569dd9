import {
  SerializerSelector,
  type Serializer,
  type SerializerFactory,
} from '@fastify/fast-json-stringify-compiler';

/** Fastify's own factory of response serializers (fast-json-stringify). */
const compileWith: SerializerFactory = SerializerSelector();

/** Compiled serializers by the app's shared schemas and options (as JSON), then by route schema. */
const compiled = new Map<string, WeakMap<object, Serializer>>();

/**
 * Fastify's response serializer factory, remembering what it compiled across apps: a process
 * that builds the app more than once (each test of the server does) compiles a route's response
 * schema once. Compiling them took ~135 ms of the ~250 ms an app took to build. A serializer
 * depends only on the response schema and on the shared schemas it may reference (with the
 * serializer options): the first is the key object (route schemas are module constants), the
 * others are compared by their JSON.
 */
export const rememberingSerializers: SerializerFactory = (externalSchemas, options) => {
  const compile = compileWith(externalSchemas, options);
  const key = JSON.stringify([externalSchemas ?? null, options ?? null]);
  let bySchema = compiled.get(key);
  if (!bySchema) compiled.set(key, (bySchema = new WeakMap()));
  const known = bySchema;
  return (route) => {
    const schema = route.schema;
    if (typeof schema !== 'object' || schema === null) return compile(route);
    let serializer = known.get(schema);
    if (!serializer) {
      serializer = compile(route);
      known.set(schema, serializer);
    }
    return serializer;
  };
};
