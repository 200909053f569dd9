import type { Command } from 'commander';
import type { Io } from '../io.js';
import { registerWorkflowDeploy } from './workflow-deploy.js';
import { registerWorkflowList } from './workflow-list.js';
import { registerWorkflowRun } from './workflow-run.js';
import { registerWorkflowTest } from './workflow-test.js';
import { registerWorkflowValidate } from './workflow-validate.js';

/** `weft workflow ...`: validate, list, run, test and deploy workflow files. */
export function registerWorkflow(program: Command, io: Io, setExit: (code: number) => void): void {
  const workflow = program.command('workflow');
  registerWorkflowValidate(workflow, io, setExit);
  registerWorkflowList(workflow, io, setExit);
  registerWorkflowRun(workflow, io, setExit);
  registerWorkflowTest(workflow, io, setExit);
  registerWorkflowDeploy(workflow, io, setExit);
}
