import { Graph, layout, type Edge } from '@dagrejs/dagre';
import type { StepView } from '../timeline.js';

/** A step of a workflow definition, as far as the graph reads it. */
interface StepShape {
  name?: string;
  id?: string;
  type?: string;
  plugin?: string;
  connector?: string;
  action?: string;
  agent?: string;
  workflow?: string;
  condition?: unknown;
  for_each?: unknown;
  parallel?: unknown;
  continue_on_error?: boolean;
}

/** One node of the workflow graph: a step. */
export interface GraphNode {
  /** The step's path, as events name it: `fan/left` inside parallel `fan`. */
  path: string;
  name: string;
  /** What it runs: `gate.echo`, `transform`, `parallel`, `workflow billing`. */
  kind: string;
  /** `for_each` over this expression (one node for all its iterations). */
  forEach?: string;
  /** `condition`: the step runs only when it holds. */
  condition?: string;
  continueOnError: boolean;
  /** The workflow a subworkflow step calls. */
  calls?: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An edge between two steps, with the points of its route. */
export interface GraphEdge {
  from: string;
  to: string;
  points: { x: number; y: number }[];
}

export interface WorkflowLayout {
  nodes: GraphNode[];
  edges: GraphEdge[];
  width: number;
  height: number;
}

export const NODE_WIDTH = 190;
export const NODE_HEIGHT = 58;

/**
 * The graph of a workflow definition (the object inside `workflows`), laid out top to bottom
 * with dagre: top-level steps in order, a parallel block's children side by side below it and
 * joined again by the step after it. Nested parallel blocks nest the same way.
 */
export function layoutWorkflow(definition: unknown): WorkflowLayout {
  const steps = stepsOf(definition);
  const g = new Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 28, ranksep: 36, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  const nodes = new Map<string, Omit<GraphNode, 'x' | 'y' | 'width' | 'height'>>();
  const add = (step: StepShape, prefix: string): string => {
    const name = step.name ?? step.id ?? '?';
    const path = prefix ? `${prefix}/${name}` : name;
    nodes.set(path, {
      path,
      name,
      kind: kindOf(step),
      ...(step.for_each !== undefined ? { forEach: String(step.for_each) } : {}),
      ...(step.condition !== undefined ? { condition: String(step.condition) } : {}),
      continueOnError: step.continue_on_error === true,
      ...(typeof step.workflow === 'string' ? { calls: step.workflow } : {}),
    });
    g.setNode(path, { width: NODE_WIDTH, height: NODE_HEIGHT });
    return path;
  };
  /** Adds `list` in sequence after `before`; gives the ends the next step joins from. */
  const chain = (list: StepShape[], before: string[], prefix: string): string[] => {
    let ends = before;
    for (const step of list) {
      const path = add(step, prefix);
      for (const end of ends) g.setEdge(end, path);
      const children = Array.isArray(step.parallel) ? (step.parallel as StepShape[]) : [];
      ends = children.length === 0 ? [path] : children.flatMap((c) => chain([c], [path], path));
    }
    return ends;
  };
  chain(steps, [], '');
  layout(g);
  const graph = g.graph();
  return {
    nodes: [...nodes.values()].map((node) => {
      const at = g.node(node.path);
      return {
        ...node,
        x: at.x - at.width / 2,
        y: at.y - at.height / 2,
        width: at.width,
        height: at.height,
      };
    }),
    edges: g.edges().map((e: Edge) => ({ from: e.v, to: e.w, points: g.edge(e).points ?? [] })),
    width: Math.ceil(graph.width ?? 0),
    height: Math.ceil(graph.height ?? 0),
  };
}

/** What a node shows of a run: the status of its step, its iterations and attempts. */
export interface NodeState {
  status: string;
  /** The views of this step (one per start: a for_each step inside a loop starts again). */
  views: StepView[];
  /** Items of a for_each step, once it ended (the length of its output list). */
  items?: number;
}

/** The run's state of every node, by step path (`name [2]` entries fold into `name`). */
export function nodeStates(steps: readonly StepView[]): Map<string, NodeState> {
  const states = new Map<string, NodeState>();
  for (const view of steps) {
    const path = view.name.replace(/ \[\d+\]$/, '');
    const state = states.get(path) ?? { status: view.status, views: [] };
    state.views.push(view);
    state.status = merged(state.status, view.status);
    if (Array.isArray(view.output)) state.items = view.output.length;
    states.set(path, state);
  }
  return states;
}

const RANK = ['failed', 'running', 'canceled', 'success', 'skipped'];

function merged(a: string, b: string): string {
  const ra = RANK.indexOf(a);
  const rb = RANK.indexOf(b);
  return ra === -1 ? b : rb === -1 ? a : RANK[Math.min(ra, rb)]!;
}

function stepsOf(definition: unknown): StepShape[] {
  if (typeof definition !== 'object' || definition === null) return [];
  const steps = (definition as { steps?: unknown }).steps;
  return Array.isArray(steps)
    ? steps.filter((s): s is StepShape => typeof s === 'object' && s !== null)
    : [];
}

function kindOf(step: StepShape): string {
  if (Array.isArray(step.parallel) || step.type === 'parallel') return 'parallel';
  if (step.workflow !== undefined) return `workflow ${step.workflow}`;
  if (step.agent !== undefined || step.type === 'agent') return 'agent';
  if (step.type === 'transform') return 'transform';
  const target = step.plugin ?? step.connector?.replace(/^connector:/, '').replace(/@.*$/, '');
  if (target !== undefined) return step.action ? `${target}.${step.action}` : target;
  return step.type ?? 'step';
}
