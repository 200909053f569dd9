/**
 * One change between two versions of an action's schema (docs/registry.md#what-is-breaking).
 * `path` names the place in the action: `input.properties.id`, `output.properties.total`,
 * `input` (the schema itself) or `action` (the action as a whole).
 */
export interface SchemaChange {
  action: string;
  path: string;
  change: string;
}

/** The changes of one comparison, split by whether a caller of the old version can break. */
export interface ChangeLists {
  breaks: SchemaChange[];
  compatible: SchemaChange[];
}

type Schema = Record<string, unknown>;

/** An action as a definition lists it: its name and its schemas. */
export interface ActionSchemas {
  name: string;
  input_schema?: unknown;
  output_schema?: unknown;
}

/**
 * Compares the actions of two versions of a definition (docs/registry.md#what-is-breaking): an
 * action removed (a rename is a removal and an addition) breaks; an action added is compatible;
 * the actions in both are compared by {@link diffInput} and {@link diffOutput}.
 */
export function diffActions(
  old: readonly ActionSchemas[],
  next: readonly ActionSchemas[],
): ChangeLists {
  const out: ChangeLists = { breaks: [], compatible: [] };
  const newActions = new Map(next.map((a) => [a.name, a]));
  const oldNames = new Set(old.map((a) => a.name));
  for (const action of old) {
    const now = newActions.get(action.name);
    if (!now) {
      const added = [...newActions.keys()].filter((name) => !oldNames.has(name));
      const hint = added.length > 0 ? ` (renamed? new: ${added.join(', ')})` : '';
      out.breaks.push({ action: action.name, path: 'action', change: `removed${hint}` });
      continue;
    }
    diffInput(action.name, action.input_schema, now.input_schema, out);
    diffOutput(action.name, action.output_schema, now.output_schema, out);
  }
  for (const name of newActions.keys())
    if (!oldNames.has(name)) out.compatible.push({ action: name, path: 'action', change: 'added' });
  return out;
}

/** Lower bounds: a new or higher value accepts less. */
const LOWER_BOUNDS = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties'];
/** Upper bounds: a new or lower value accepts less. */
const UPPER_BOUNDS = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties'];

/**
 * Compares an action's input schema: the new version must accept every input the old one did.
 * Breaking: a property removed; its `type` narrowed (a type dropped, `number` → `integer`); an
 * `enum` added or losing values; a lower bound (minLength, minimum, …) added or raised; an upper
 * bound (maxLength, maximum, …) added or lowered; a property newly required (new, or optional
 * before). The opposite moves are listed as compatible. A missing schema accepts any object.
 * Nested `properties` and `items` are compared the same way.
 */
export function diffInput(action: string, old: unknown, next: unknown, out: ChangeLists): void {
  // An action's input is always an object (a step's `with`): no schema is any object.
  const input = (schema: unknown) => (isSchema(schema) ? schema : { type: 'object' });
  compareInput(action, 'input', input(old), input(next), out);
}

/**
 * Compares an action's output schema: the new version must still give every property the old
 * one promised, as the same type. Breaking: a property removed, or no longer required; a
 * `type` that now allows a type it did not (`integer` → `number`, `string` → `["string","null"]`).
 * A property added, or a type narrowed, is compatible. Nested `properties` and `items` too.
 */
export function diffOutput(action: string, old: unknown, next: unknown, out: ChangeLists): void {
  compareOutput(action, 'output', asSchema(old), asSchema(next), out);
}

function compareInput(action: string, path: string, old: Schema, next: Schema, out: ChangeLists) {
  const add = (list: SchemaChange[], change: string) => list.push({ action, path, change });
  const oldTypes = typesOf(old);
  const newTypes = typesOf(next);
  if (narrows(oldTypes, newTypes))
    add(out.breaks, `type narrowed: ${show(oldTypes)} → ${show(newTypes)}`);
  else if (show(oldTypes) !== show(newTypes))
    add(out.compatible, `type widened: ${show(oldTypes)} → ${show(newTypes)}`);
  compareEnum(old, next, add, out);
  for (const key of LOWER_BOUNDS) compareBound(key, old[key], next[key], 'raised', add, out);
  for (const key of UPPER_BOUNDS) compareBound(key, old[key], next[key], 'lowered', add, out);
  const oldRequired = requiredOf(old);
  const newRequired = requiredOf(next);
  const oldProps = propertiesOf(old);
  const newProps = propertiesOf(next);
  for (const name of Object.keys(oldProps)) {
    const at = `${path}.properties.${name}`;
    const property = newProps[name];
    if (property === undefined) out.breaks.push({ action, path: at, change: 'removed' });
    else compareInput(action, at, asSchema(oldProps[name]), asSchema(property), out);
  }
  for (const name of Object.keys(newProps)) {
    if (name in oldProps) continue;
    const at = `${path}.properties.${name}`;
    if (!newRequired.has(name)) out.compatible.push({ action, path: at, change: 'added' });
  }
  for (const name of newRequired) {
    if (oldRequired.has(name)) continue;
    const at = `${path}.properties.${name}`;
    const was = name in oldProps ? 'made required (was optional)' : 'added as required';
    out.breaks.push({ action, path: at, change: was });
  }
  for (const name of oldRequired) {
    if (!newRequired.has(name) && name in newProps)
      out.compatible.push({ action, path: `${path}.properties.${name}`, change: 'made optional' });
  }
  if (isSchema(old['items']) || isSchema(next['items']))
    compareInput(action, `${path}.items`, asSchema(old['items']), asSchema(next['items']), out);
}

function compareOutput(action: string, path: string, old: Schema, next: Schema, out: ChangeLists) {
  const oldTypes = typesOf(old);
  const newTypes = typesOf(next);
  if (narrows(newTypes, oldTypes))
    out.breaks.push({
      action,
      path,
      change: `type changed: ${show(oldTypes)} → ${show(newTypes)}`,
    });
  const oldProps = propertiesOf(old);
  const newProps = propertiesOf(next);
  const newRequired = requiredOf(next);
  for (const name of Object.keys(oldProps)) {
    const at = `${path}.properties.${name}`;
    const property = newProps[name];
    if (property === undefined) {
      out.breaks.push({ action, path: at, change: 'removed' });
      continue;
    }
    if (requiredOf(old).has(name) && !newRequired.has(name))
      out.breaks.push({ action, path: at, change: 'no longer required (may be missing)' });
    compareOutput(action, at, asSchema(oldProps[name]), asSchema(property), out);
  }
  for (const name of Object.keys(newProps))
    if (!(name in oldProps))
      out.compatible.push({ action, path: `${path}.properties.${name}`, change: 'added' });
  if (isSchema(old['items']) || isSchema(next['items']))
    compareOutput(action, `${path}.items`, asSchema(old['items']), asSchema(next['items']), out);
}

function compareEnum(
  old: Schema,
  next: Schema,
  add: (list: SchemaChange[], change: string) => void,
  out: ChangeLists,
): void {
  const before = Array.isArray(old['enum']) ? old['enum'].map((v) => JSON.stringify(v)) : null;
  const after = Array.isArray(next['enum']) ? next['enum'].map((v) => JSON.stringify(v)) : null;
  if (after === null) {
    if (before !== null) add(out.compatible, 'enum removed (any value)');
    return;
  }
  if (before === null) return add(out.breaks, `enum added: ${after.join(', ')}`);
  const lost = before.filter((v) => !after.includes(v));
  const gained = after.filter((v) => !before.includes(v));
  if (lost.length > 0) add(out.breaks, `enum lost ${lost.join(', ')}`);
  if (gained.length > 0) add(out.compatible, `enum gained ${gained.join(', ')}`);
}

function compareBound(
  key: string,
  old: unknown,
  next: unknown,
  tighter: 'raised' | 'lowered',
  add: (list: SchemaChange[], change: string) => void,
  out: ChangeLists,
): void {
  const a = typeof old === 'number' ? old : undefined;
  const b = typeof next === 'number' ? next : undefined;
  if (a === b) return;
  if (b === undefined) return add(out.compatible, `${key} ${a} removed`);
  if (a === undefined) return add(out.breaks, `${key} ${b} added`);
  const narrowed = tighter === 'raised' ? b > a : b < a;
  add(
    narrowed ? out.breaks : out.compatible,
    `${key} ${narrowed ? tighter : 'relaxed'}: ${a} → ${b}`,
  );
}

/** The JSON types a schema allows; `[]` stands for any type (no `type` keyword). */
function typesOf(schema: Schema): string[] {
  const type = schema['type'];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string').sort();
  return [];
}

/** Whether `to` allows less than `from` (lists of types, `[]`: any). */
function narrows(from: string[], to: string[]): boolean {
  if (to.length === 0) return false;
  return from.length === 0 || from.some((type) => !accepts(to, type));
}

/** Whether a list of types (`[]`: any) allows `type`; `number` allows `integer`. */
function accepts(types: string[], type: string): boolean {
  return (
    types.length === 0 || types.includes(type) || (type === 'integer' && types.includes('number'))
  );
}

function show(types: string[]): string {
  if (types.length === 0) return 'any';
  return types.length === 1 ? types[0]! : `[${types.join(', ')}]`;
}

function propertiesOf(schema: Schema): Record<string, unknown> {
  return isSchema(schema['properties']) ? schema['properties'] : {};
}

function requiredOf(schema: Schema): Set<string> {
  const required = schema['required'];
  return new Set(Array.isArray(required) ? required.filter((r) => typeof r === 'string') : []);
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asSchema(value: unknown): Schema {
  return isSchema(value) ? value : {};
}
