import { useMemo } from 'preact/hooks';
import type { StepView } from '../timeline.js';
import { layoutWorkflow, nodeStates, type GraphNode, type NodeState } from './model.js';

/**
 * A workflow as a graph (an SVG, top to bottom): one node per step, parallel branches side by
 * side, `for_each` as one node with its count, conditions (`if`) and `continue_on_error` marked,
 * subworkflow steps naming the workflow they call. On a run, `steps` colours each node by its
 * status; `onSelect` makes nodes clickable. The picture is one image to assistive technology:
 * the steps list beside it says the same in words.
 */
export function WorkflowGraph({
  definition,
  name,
  steps,
  selected,
  onSelect,
}: {
  definition: unknown;
  name: string;
  steps?: readonly StepView[];
  selected?: string | undefined;
  onSelect?: (path: string) => void;
}) {
  const graph = useMemo(() => layoutWorkflow(definition), [definition]);
  const states = useMemo(() => nodeStates(steps ?? []), [steps]);
  if (graph.nodes.length === 0) return null;
  const summary = graph.nodes
    .map((node) => `${node.name}${steps ? ` ${states.get(node.path)?.status ?? 'pending'}` : ''}`)
    .join(', ');
  return (
    <div class="graph-frame">
      <svg
        role="img"
        aria-label={`Workflow graph of ${name}: ${summary}`}
        class="workflow-graph"
        width={graph.width}
        height={graph.height}
        viewBox={`0 0 ${graph.width} ${graph.height}`}
      >
        <defs>
          <marker
            id="graph-arrow"
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto-start-reverse"
          >
            <path d="M 0 0 L 10 5 L 0 10 z" class="graph-arrowhead" />
          </marker>
        </defs>
        {graph.edges.map((edge) => (
          <path
            key={`${edge.from}>${edge.to}`}
            class="graph-edge"
            marker-end="url(#graph-arrow)"
            d={edge.points.map((p, i) => `${i === 0 ? 'M' : 'L'} ${p.x} ${p.y}`).join(' ')}
          />
        ))}
        {graph.nodes.map((node) => (
          <Node
            key={node.path}
            node={node}
            state={steps ? (states.get(node.path) ?? { status: 'pending', views: [] }) : undefined}
            selected={selected === node.path}
            onSelect={onSelect}
          />
        ))}
      </svg>
    </div>
  );
}

function Node({
  node,
  state,
  selected,
  onSelect,
}: {
  node: GraphNode;
  state: NodeState | undefined;
  selected: boolean;
  onSelect: ((path: string) => void) | undefined;
}) {
  const marks = [
    node.condition !== undefined ? 'if' : '',
    node.continueOnError ? 'continues on error' : '',
  ].filter(Boolean);
  const count =
    node.forEach === undefined
      ? ''
      : state?.items !== undefined
        ? ` ×${state.items}`
        : ' (for each)';
  const status = state?.status;
  const progress = status === 'running' ? state?.views.at(-1)?.progress?.percent : undefined;
  return (
    <g
      class={`graph-node${status ? ` node-${status}` : ''}${selected ? ' selected' : ''}${onSelect ? ' clickable' : ''}`}
      data-step={node.path}
      transform={`translate(${node.x} ${node.y})`}
      onClick={onSelect ? () => onSelect(node.path) : undefined}
    >
      <title>
        {node.name}: {node.kind}
        {node.condition !== undefined ? `, only if ${node.condition}` : ''}
        {node.forEach !== undefined ? `, for each of ${node.forEach}` : ''}
      </title>
      <rect width={node.width} height={node.height} rx="6" class="graph-box" />
      {node.forEach !== undefined ? (
        <rect
          x="4"
          y="4"
          width={node.width - 8}
          height={node.height - 8}
          rx="4"
          class="graph-loop"
        />
      ) : null}
      <text x="10" y="20" class="graph-name">
        {clip(node.name, 20)}
        {count}
      </text>
      <text x="10" y="37" class="graph-kind">
        {clip(node.kind, 26)}
      </text>
      <text x="10" y="51" class="graph-marks">
        {[status, progress !== undefined ? `${Math.round(progress)}%` : '', ...marks]
          .filter(Boolean)
          .join(' · ')}
      </text>
    </g>
  );
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
