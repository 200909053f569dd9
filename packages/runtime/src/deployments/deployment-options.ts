import type { Clock, DeploymentStore, DetectorNames, Principal, SecretsProvider } from '@weft/core';
import type { WorkflowDefinition } from '@weft/engine';
import type { AuditLog } from '../audit/audit-log.js';
import type { EventRouter } from '../triggers/events/event-router.js';
import type { TriggerLogger } from '../triggers/logger.js';
import type { Scheduler } from '../triggers/schedule/scheduler.js';
import type { StartExecution } from '../triggers/start-execution.js';
import type { WebhookTable } from '../triggers/webhook/webhook-table.js';
import type { AgentCheck } from './agent-refs.js';
import type { ImpactSources } from './impact/impact.js';
import type { AgentResolver } from './plugin-refs.js';

/** What a deployment service works with. */
export interface DeploymentServiceOptions {
  store: DeploymentStore;
  webhooks: WebhookTable;
  scheduler: Scheduler;
  events: EventRouter;
  secrets: SecretsProvider;
  start: StartExecution;
  clock?: Clock;
  logger?: TriggerLogger;
  /** Largest webhook body of webhooks that set no maxPayloadSize. */
  maxPayloadSize?: number;
  /**
   * The registry's latest version of a plugin, read by the unpublish "in use" check: a bare
   * `plugin: <slug>` uses whatever version is latest when it runs.
   */
  resolvePluginVersion?: (slug: string) => Promise<string | undefined>;
  /**
   * Owner of the executions of workflows deployed without a key (`weft server --workflows DIR`).
   * Default `local`.
   */
  defaultOwner?: string;
  /**
   * What the workflows directory's deployments act as now (`WEFT_WORKFLOWS_ROLES`,
   * `WEFT_WORKFLOWS_PERMISSIONS`, permissions expanded by the access file in force): checked
   * against their authorization blocks and recorded as their deployer. Without it a guarded
   * workflow is refused there (fail closed).
   */
  directoryPrincipal?: () => Principal | undefined;
  /** Records the authorization decisions of deployments. Default: none recorded. */
  audit?: AuditLog;
  /**
   * The guardrail detectors the runtime offers by name (`DetectorRegistry.names()`): a workflow
   * whose `guardrails.detectors` names another is refused. Default: the lexical ones only.
   */
  detectors?: DetectorNames;
  /**
   * Of the plugins a workflow (and the workflows it may call) uses, those this server cannot
   * run: each becomes a deployment warning. Default: none checked.
   */
  unavailablePlugins?: (
    workflow: WorkflowDefinition,
    library: readonly WorkflowDefinition[],
  ) => Promise<string[]>;
  /**
   * Why this server cannot run the agent of an agent step's reference (the server: its
   * `AgentRunner.check`, which resolves it and applies the secrets policy of published agents):
   * each agent step of a workflow (and of the workflows it may call) it refuses becomes a
   * deployment warning. Default: none checked.
   */
  checkAgent?: AgentCheck;
  /**
   * How agent references resolve, for the unpublish "in use" check (the server:
   * `publishedAgentVersions`): a published agent's version is in use by the deployments with an
   * agent step whose range resolves to it. Default: agents are not counted.
   */
  resolveAgentVersions?: AgentResolver;
  /**
   * What the impact check before a deploy reads: the executions in progress and the registry
   * (docs/workflow-language.md#check-the-impact-before-you-deploy). Without it only the
   * definitions are compared.
   */
  impact?: ImpactSources;
}
