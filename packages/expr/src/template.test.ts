import { ValidationError } from '@weft/core';
import { describe, expect, it } from 'vitest';
import { compileTemplate, evaluateTemplate, hasTemplate, TemplateError } from './index.js';
import { LIMITS } from './limits.js';
import { errorOf, failure, run, sampleScope } from './test-helpers.js';

describe('kinds of template', () => {
  it('returns the typed value of a template that is exactly one expression', () => {
    expect(compileTemplate('{{ inputs.count }}').kind).toBe('expression');
    expect(run('{{ inputs.count }}')).toBe(3);
    expect(run('{{inputs.flag}}')).toBe(true);
    expect(run('{{ inputs.tags }}')).toEqual(['a', 'b']);
    expect(run('{{ inputs.nothing }}')).toBe(null);
  });

  it('interpolates text around expressions into a string', () => {
    expect(compileTemplate(' {{ inputs.count }}').kind).toBe('text');
    expect(run(' {{ inputs.count }}')).toBe(' 3');
    expect(run('{{ inputs.count }}{{ inputs.count }}')).toBe('33');
    expect(run('n={{ inputs.count }}, ok={{ inputs.flag }}, none=[{{ inputs.nothing }}]')).toBe(
      'n=3, ok=true, none=[]',
    );
    expect(run('tags={{ inputs.tags }} out={{ steps.fetch.output.items[0] }}')).toBe(
      'tags=["a","b"] out={"id":1,"name":"widget"}',
    );
  });

  it('returns a string without {{ as it is', () => {
    const template = compileTemplate('plain } text }}');
    expect(template.kind).toBe('literal');
    expect(template.evaluate({})).toBe('plain } text }}');
    expect(template.references).toEqual([]);
  });

  it('writes a literal {{ as an expression', () => {
    expect(run(`{{ '{{' }}`)).toBe('{{');
    expect(run(`a {{ '{{' }} b }}`)).toBe('a {{ b }}');
  });

  it('reports an unclosed {{ at its position', () => {
    const error = failure('ok {{ inputs.count and more');
    expect(error.details.constraint).toBe('syntax');
    expect(error.message).toBe('unclosed `{{`: expected `}}` before the end of the template');
    expect(error.offset).toBe(3);
    const single = failure('ok {{ inputs.count } and more');
    expect(single.message).toBe('expected `}}` to close the expression, found a single `}`');
    expect(single.offset).toBe(19);
    expect(failure('{{ 1 }} {{').offset).toBe(8);
  });

  it('locates errors in the template source, not in the expression', () => {
    const error = failure('prefix text {{ imputs.x }}');
    expect(error.offset).toBe(15);
  });
});

describe('single pass', () => {
  it('never evaluates a value that looks like a template', () => {
    const scope = { inputs: { sneaky: '{{ secrets.TOKEN }}' }, secrets: { TOKEN: 'leak' } };
    expect(evaluateTemplate('{{ inputs.sneaky }}', scope)).toBe('{{ secrets.TOKEN }}');
    expect(evaluateTemplate('x {{ inputs.sneaky }} y', scope)).toBe('x {{ secrets.TOKEN }} y');
    expect(evaluateTemplate(`{{ inputs.sneaky + '' }}`, scope)).toBe('{{ secrets.TOKEN }}');
    expect(compileTemplate('{{ inputs.sneaky }}').readsSecrets).toBe(false);
  });
});

describe('limits', () => {
  it('refuses templates longer than maxTemplateLength', () => {
    const error = errorOf(() => compileTemplate('x'.repeat(LIMITS.maxTemplateLength + 1)));
    expect(error.details.constraint).toBe('limit');
    expect(error.message).toContain('maxTemplateLength');
    expect(compileTemplate('x'.repeat(LIMITS.maxTemplateLength)).kind).toBe('literal');
  });

  it('refuses more than maxParts parts', () => {
    const error = errorOf(() => compileTemplate('{{ 1 }}'.repeat(LIMITS.maxParts + 1)));
    expect(error.details.constraint).toBe('limit');
    expect(error.offset).toBe('{{ 1 }}'.length * LIMITS.maxParts);
    expect(run('{{ 1 }}'.repeat(LIMITS.maxParts))).toBe('1'.repeat(LIMITS.maxParts));
  });

  it('caps the length of a text template result', () => {
    const scope = { inputs: { s: 'z'.repeat(20_000) } };
    const error = failure('{{ inputs.s }}'.repeat(LIMITS.maxParts), scope);
    expect(error.details.constraint).toBe('limit');
    expect(error.message).toContain('maxStringLength');
  });
});

describe('errors', () => {
  it('are validation errors carrying field, constraint and position', () => {
    const error = failure('{{ inputs.count | upper }}');
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toBeInstanceOf(TemplateError);
    expect(error.name).toBe('TemplateError');
    expect(error.code).toBe('VALIDATION');
    expect(error.details).toEqual({
      field: 'inputs.count | upper',
      constraint: 'type',
      offset: 3,
      length: 20,
    });
    expect(error.message).not.toContain('\n');
  });
});

describe('compileTemplate', () => {
  it('returns the same compiled object for the same source', () => {
    const source = '{{ inputs.count + 1 }} cached';
    expect(compileTemplate(source)).toBe(compileTemplate(source));
    expect(compileTemplate(source).evaluate(sampleScope())).toBe('4 cached');
  });

  it('gives immutable templates', () => {
    const template = compileTemplate('{{ inputs.count }}');
    expect(Object.isFrozen(template)).toBe(true);
    expect(Object.isFrozen(template.references)).toBe(true);
  });

  it('recognises templates by {{', () => {
    expect(hasTemplate('a {{ b }}')).toBe(true);
    expect(hasTemplate('a { b }')).toBe(false);
  });
});
