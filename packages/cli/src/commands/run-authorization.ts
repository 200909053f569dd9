import { WeftError, type Principal } from '@weft/core';
import type { ToolApprovalGate, ToolDecision } from '@weft/engine';
import type { ApproveRun, Weft, WorkflowDefinition } from '@weft/sdk';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import type { IdentityFlags } from './run-identity.js';

/**
 * Who approves the local runs of a command: everyone with `--approve`; the person at the
 * terminal (`approve run of <workflow> as <subject>? [y/N]`, on stderr) when stdin is one;
 * else nobody, and a run that requires approval is refused before it starts.
 */
export function approverFor(io: Io, flags: IdentityFlags): ApproveRun | undefined {
  if (flags.approve) return () => true;
  const ask = io.ask;
  if (!ask) return undefined;
  return async ({ workflow, approvers, principal, signal }) => {
    io.err(
      `workflow "${workflow.name}" requires approval${approvers.length > 0 ? ` by one of: ${approvers.join(', ')}` : ''}\n`,
    );
    const answer = await ask(
      `approve run of ${workflow.name} as ${principal.subject}? [y/N] `,
      signal,
    );
    return /^\s*y(es)?\s*$/i.test(answer);
  };
}

/**
 * Checks, before anything runs, that the run's principal may run each of `workflows` (and the
 * subworkflows they call), and that a run requiring approval can get it. Prints why not and
 * gives exit status 2; undefined when every run may start.
 */
export function preflight(
  io: Io,
  weft: Weft,
  workflows: readonly WorkflowDefinition[],
  principal: Principal | undefined,
  canApprove: boolean,
): number | undefined {
  for (const workflow of workflows) {
    let approval;
    try {
      approval = weft.checkAuthorization(workflow, { audit: true }).approval;
    } catch (error) {
      if (!(error instanceof WeftError) || error.code !== 'FORBIDDEN') throw error;
      io.err(refusalMessage(error, principal));
      return EXIT.invalid;
    }
    if (approval && !canApprove) {
      const by =
        approval.approvers.length > 0 ? ` by one of: ${approval.approvers.join(', ')}` : '';
      io.err(
        `weft: workflow "${workflow.name}" requires approval${by}, and stdin is not a terminal to ask on: pass --approve to approve the run non-interactively\n`,
      );
      return EXIT.invalid;
    }
  }
  return undefined;
}

/**
 * The lines printed for a `FORBIDDEN` refusal: the error's message (which names the missing
 * roles and permissions), what the run holds, and how to run as someone else.
 */
export function refusalMessage(error: WeftError, principal: Principal | undefined): string {
  const lines = [`weft: ${error.message}`];
  if (principal) {
    const list = (grants: readonly string[]) => (grants.length > 0 ? grants.join(', ') : 'none');
    lines.push(
      `  running as ${principal.subject} (${principal.kind}) with roles: ${list(principal.roles)}; permissions: ${list(principal.permissions)}`,
    );
  } else {
    lines.push(
      '  pass --identity <jwt|@file> (a token of the WEFT_OIDC_ISSUER provider), or declare --role R and --permission P',
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The exit status of an error a local run rejected with before it started: 2 for a refusal or
 * invalid input (`FORBIDDEN`, `VALIDATION`), 1 otherwise (a rejected or timed-out approval, a
 * server that could not be reached).
 */
export function startFailureExit(error: unknown): number {
  return error instanceof WeftError && (error.code === 'VALIDATION' || error.code === 'FORBIDDEN')
    ? EXIT.invalid
    : EXIT.failure;
}

/**
 * Who decides the tool calls of local agent steps that need approval
 * (docs/agents.md#tool-approvals): `--approve` approves them all; the person at the terminal
 * is shown the tool and its arguments and asked (one call at a time); else each is refused with
 * `FORBIDDEN` (`approval_required`) before the tool runs: the model is told, or the step fails
 * (`on_reject: fail`).
 */
export function toolApproverFor(
  io: Io,
  flags: IdentityFlags,
  principal: Principal | undefined,
): ToolApprovalGate {
  const who = principal?.subject ?? 'local';
  let asking: Promise<unknown> = Promise.resolve();
  return {
    saved: () => undefined,
    decide: async (request): Promise<ToolDecision> => {
      if (flags.approve) return { verdict: 'approve', by: `${who} (--approve)` };
      const ask = io.ask;
      if (!ask) {
        io.err(
          `weft: agent step "${request.step}" called tool ${request.tool}, which needs approval by one of: ${request.approvers.join(', ')}; stdin is not a terminal to ask on: refused (approval_required). Pass --approve to approve tool calls\n`,
        );
        return { verdict: 'reject', by: 'weft', reason: 'approval_required', code: 'FORBIDDEN' };
      }
      const turn = asking.then(async () => {
        io.err(
          `agent step "${request.step}" wants to call tool ${request.tool} (approvers: ${request.approvers.join(', ')}) with:\n${JSON.stringify(request.arguments, null, 2)}\n`,
        );
        const answer = await ask(
          `approve this call of ${request.tool}? [y/N] `,
          AbortSignal.timeout(request.timeoutSeconds * 1000),
        ).catch(() => 'expired');
        if (answer === 'expired') {
          return { verdict: 'reject', by: 'expired', reason: 'expired' } as const;
        }
        return /^\s*y(es)?\s*$/i.test(answer)
          ? ({ verdict: 'approve', by: who } as const)
          : ({ verdict: 'reject', by: who, reason: 'declined at the terminal' } as const);
      });
      asking = turn.catch(() => {});
      return turn;
    },
  };
}
