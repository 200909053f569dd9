/**
 * The files `weft init` writes: a project whose `npm test` runs the workflow's fixture and whose
 * `npm run dev` runs it, with a transform, a shell action and a TypeScript handler.
 */

/** Where the workflow JSON Schema ships, seen from `workflows/` of a project. */
const SCHEMA = '../node_modules/@weft/cli/schemas/workflow.schema.json';

/** The project's files, path (with `/`) to content, for a package named `name`. */
export function projectFiles(name: string, version: string): Record<string, string> {
  const manifest = {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: {
      dev: 'weft workflow run workflows/hello.yaml',
      test: 'weft workflow test workflows/hello.yaml --all-fixtures',
      deploy: 'weft workflow deploy workflows/hello.yaml',
    },
    dependencies: { '@weft/cli': `^${version}`, '@weft/sdk': `^${version}` },
    engines: { node: '>=20.19' },
  };
  return {
    'package.json': `${JSON.stringify(manifest, null, 2)}\n`,
    'weft.config.yaml': CONFIG,
    'workflows/hello.yaml': WORKFLOW,
    'plugins/text.yaml': PLUGIN,
    'handlers.ts': HANDLERS,
    'tsconfig.json': `${JSON.stringify(TSCONFIG, null, 2)}\n`,
    '.gitignore': 'node_modules/\n.weft/\n',
  };
}

const CONFIG = `# weft project settings, read by weft commands run in this directory or below it.
# Paths are relative to this file; a flag (--plugins, --agents, --require) overrides its key.
plugins: plugins
agents: agents
workflows: workflows
require: [handlers.ts]
`;

const WORKFLOW = `# yaml-language-server: $schema=${SCHEMA}
#
# Run it: npm run dev (or npx weft workflow run workflows/hello.yaml -i name=Ada)
# Test it: npm test (runs testing.fixtures and compares their outputs)
workflows:
  - name: hello
    version: 1.0.0
    description: Greets someone, shouts it with a shell action and counts its letters in TypeScript.
    inputs:
      name:
        type: string
        default: world
    triggers:
      - type: manual
    steps:
      # A transform: evaluates its input, runs nothing.
      - name: greeting
        type: transform
        input:
          text: 'Hello, {{ inputs.name }}'
      # A shell action: plugins/text.yaml runs a command.
      - name: shout
        plugin: text
        action: shout
        input:
          text: '{{ steps.greeting.output.text }}'
      # A TypeScript handler: handlers.ts registers stats.letters.
      - name: count
        plugin: stats
        action: letters
        input:
          text: '{{ steps.shout.output.text }}'
    outputs:
      message:
        value: '{{ steps.shout.output.text }}'
      letters:
        value: '{{ steps.count.output.letters }}'
    testing:
      fixtures:
        - name: greets-ada
          inputs:
            name: Ada
          expectedOutputs:
            message: HELLO, ADA!
            letters: 8
`;

const PLUGIN = `# A shell connector: each action's command is an argv list run without a shell.
# \`{{ inputs.x }}\` reads field x of the action's input (which also arrives as JSON on stdin);
# stdout that parses as JSON is the action's output.
connector:
  type: connector
  kind: shell
  name: text
  namespace: local
  version: 1.0.0
  timeout: 10

actions:
  - name: shout
    description: Upper-cases \`text\` and adds an exclamation mark
    input_schema:
      type: object
      required: [text]
      properties:
        text: { type: string, maxLength: 10000 }
    output_schema:
      type: object
      required: [text]
      properties:
        text: { type: string }
    command:
      - node
      - -e
      - "console.log(JSON.stringify({ text: process.argv[1].toUpperCase() + '!' }))"
      - '{{ inputs.text }}'
`;

const HANDLERS = `import type { Weft } from '@weft/sdk';

/**
 * Registers the handlers of the workflows' steps: \`plugin: stats, action: letters\` runs the
 * function registered as 'stats.letters'. weft.config.yaml's \`require\` loads this file.
 */
export default function register(weft: Weft): void {
  weft.registerHandler<{ text: string }>('stats.letters', ({ text }) => ({
    letters: text.replace(/[^\\p{L}]/gu, '').length,
  }));
}
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  },
  include: ['*.ts'],
};
