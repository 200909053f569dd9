/** Deployed workflows: the deployment service, its HTTP routes and the directory watcher. */
export { DeploymentService } from './deployment-service.js';
export type { DeploymentServiceOptions } from './deployment-options.js';
export type { Deployed, Deployer } from './deploy-plan.js';
export { deploymentRoutes } from './deployment-routes.js';
export type { DeploymentRoutesOptions } from './deployment-routes.js';
export { watchWorkflowDirectory } from './directory-watcher.js';
export type { DirectoryWatchOptions, WatchedDirectory } from './directory-watcher.js';
export { validateDefinition, parseDefinitionBody, RESERVED_NAMES } from './parse-definition.js';
export { pluginReferences, pluginUsage } from './plugin-refs.js';
export type { AgentResolver } from './plugin-refs.js';
export { unavailableAgents } from './agent-refs.js';
export type { AgentCheck, UnavailableAgent } from './agent-refs.js';
export { reconcileDeployments, timerRepeat } from './reconcile.js';
export type { Reconciled, Repeat } from './reconcile.js';
export { createTriggers } from './create-triggers.js';
export type { TriggersOptions, Triggers } from './create-triggers.js';
export { libraryOf } from './library.js';
