import type { ConnectorAction, ConnectorDefinition } from '@weft/core';
import { checkRuntime, type Reporter } from '@weft/engine';
import { compileTemplate, TemplateError } from '@weft/expr';

/** Roots a connector template may read: the action input and the environment. */
const CONNECTOR_ROOTS = new Set(['inputs', 'env']);

/**
 * Checks what the schema cannot: unique action names, the fields each kind needs (`command`
 * for `shell`; `base_url` or `request` for `http`; neither for `function`), and every `{{ }}`
 * template (syntax, and roots limited to `inputs` and `env`), and the quantities of
 * `connector.runtime` against docs/protocol.md#limits.
 */
export function checkDefinitionMeaning(definition: ConnectorDefinition, reporter: Reporter): void {
  const { connector, actions } = definition;
  const seen = new Set<string>();
  actions.forEach((action, index) => {
    const at = ['actions', index];
    if (seen.has(action.name)) {
      reporter.error([...at, 'name'], 'duplicate', `action "${action.name}" is defined twice`);
    }
    seen.add(action.name);
    checkKindFields(definition, action, at, reporter);
    action.command?.forEach((arg, i) => checkTemplate(arg, [...at, 'command', i], reporter));
    for (const [key, text] of Object.entries(action.env ?? {}))
      checkTemplate(text, [...at, 'env', key], reporter);
    const request = action.request;
    if (request) {
      checkTemplate(request.url, [...at, 'request', 'url'], reporter);
      for (const field of ['headers', 'query'] as const) {
        for (const [key, text] of Object.entries(request[field] ?? {}))
          checkTemplate(text, [...at, 'request', field, key], reporter);
      }
      checkTemplates(request.body, [...at, 'request', 'body'], reporter);
    }
  });
  for (const [key, text] of Object.entries(connector.headers ?? {}))
    checkTemplate(text, ['connector', 'headers', key], reporter);
  if (connector.runtime) checkRuntime(connector.runtime, ['connector', 'runtime'], reporter);
}

function checkKindFields(
  definition: ConnectorDefinition,
  action: ConnectorAction,
  at: (string | number)[],
  reporter: Reporter,
): void {
  const { kind, base_url } = definition.connector;
  const misplaced = (field: string, owner: string) =>
    reporter.error(
      [...at, field],
      'kind',
      `${field} is for ${owner} connectors, this one is ${kind}`,
      {
        key: true,
      },
    );
  if (kind !== 'shell') {
    if (action.command) misplaced('command', 'shell');
    if (action.env) misplaced('env', 'shell');
  }
  if (kind !== 'http' && action.request) misplaced('request', 'http');
  if (kind === 'shell' && !action.command) {
    reporter.error(at, 'required', `shell action "${action.name}" needs a command (an argv list)`);
  }
  if (kind === 'http' && !action.request && base_url === undefined) {
    reporter.error(
      at,
      'required',
      `http action "${action.name}" needs a request, or the connector a base_url`,
    );
  }
  if (action.request && base_url === undefined && !/^(https?:\/\/|\{\{)/.test(action.request.url)) {
    reporter.error([...at, 'request', 'url'], 'url', 'a relative url needs connector.base_url');
  }
}

function checkTemplates(value: unknown, path: (string | number)[], reporter: Reporter): void {
  if (typeof value === 'string') return checkTemplate(value, path, reporter);
  if (Array.isArray(value)) {
    value.forEach((item, index) => checkTemplates(item, [...path, index], reporter));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) checkTemplates(item, [...path, key], reporter);
  }
}

function checkTemplate(source: string, path: (string | number)[], reporter: Reporter): void {
  if (!source.includes('{{')) return;
  try {
    const template = compileTemplate(source);
    for (const reference of template.references) {
      if (CONNECTOR_ROOTS.has(reference.root)) continue;
      reporter.error(
        path,
        'template',
        `connector templates read only inputs (the action input) and env, not ${reference.root}`,
      );
      return;
    }
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    reporter.error(path, 'template', error.message, { offsetInValue: error.offset });
  }
}
