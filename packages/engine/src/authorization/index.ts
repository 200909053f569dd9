export * from './workflow-check.js';
export * from './step-permissions.js';
