export { main, buildProgram, VERSION } from './main.js';
export type { Io } from './io.js';
export { cliReference } from './cli-reference.js';
