export type { CompiledOptions } from './compiled.js';
