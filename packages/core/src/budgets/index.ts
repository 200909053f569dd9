export * from './ledger.js';
export * from './period.js';
