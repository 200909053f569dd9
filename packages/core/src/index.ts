export * from './errors/index.js';
export * from './assert-never.js';
export * from './did-you-mean.js';
export * from './workflow/index.js';
export * from './ports/index.js';
export * from './connector/index.js';
export * from './registry/index.js';
