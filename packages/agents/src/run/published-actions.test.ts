import { describe, expect, it } from 'vitest';
import { publishedActions, type PublishedDefinitions } from './published-actions.js';

/** A registry holding `http@1.0.0` and `http@2.0.0` (latest), each with a `get` action. */
function registry(asked: string[]): PublishedDefinitions {
  return {
    where: 'the test registry',
    latest: () => Promise.resolve('2.0.0'),
    actions: (slug, version) => {
      asked.push(`${slug}@${version}`);
      const schema = { type: 'object', title: `${slug}@${version}` };
      return Promise.resolve([{ name: 'get', input_schema: schema }]);
    },
  };
}

describe('publishedActions', () => {
  it('reads the version a connector reference pins, and the latest for a plugin slug', async () => {
    const asked: string[] = [];
    const lookup = publishedActions(registry(asked));
    await lookup({ kind: 'connector', ref: 'connector:acme/http@1.0.0' }, 'get');
    await lookup({ kind: 'plugin', slug: 'http' }, 'get');
    expect(asked).toEqual(['http@1.0.0', 'http@2.0.0']);
  });

  it("refuses a malformed connector reference with the tools' VALIDATION", async () => {
    const lookup = publishedActions(registry([]));
    const refused = lookup({ kind: 'connector', ref: 'acme/http@1.0.0' }, 'get');
    await expect(refused).rejects.toThrow('"acme/http@1.0.0" is not a connector reference');
    await expect(refused).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { field: 'agent.tools', constraint: 'input_schema', reason: 'pattern' },
    });
  });
});
