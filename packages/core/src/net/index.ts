export * from './egress.js';
