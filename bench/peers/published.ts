/**
 * Figures other projects published, printed beside ours as reference only: not measured here,
 * on other hardware, other versions and other set-ups (Windmill's study ran each engine from
 * its recommended docker-compose on AWS m4.large instances, with Python tasks). Each row says
 * what the figure measures and where it was published; a project without a figure found says so.
 */

/** One published figure. */
export interface Published {
  readonly system: string;
  readonly figure: string;
  readonly measures: string;
  readonly source: string;
}

const WINDMILL_PYTHON = 'https://www.windmill.dev/docs/misc/benchmarks/competitors/results/python';
const WINDMILL_KESTRA = 'https://www.windmill.dev/docs/misc/benchmarks/competitors/kestra';
const WINDMILL_GO = 'https://www.windmill.dev/docs/misc/benchmarks/competitors/results/go';

export const PUBLISHED: readonly Published[] = [
  {
    system: 'Windmill',
    figure: '4.383 s (dedicated worker: 2.092 s)',
    measures: '40 light tasks fibo(10) in sequence, one flow, Python, v1.483.1',
    source: WINDMILL_KESTRA,
  },
  {
    system: 'Windmill',
    figure: '8.347 s (dedicated worker: 7.701 s)',
    measures: '10 long tasks fibo(33) in sequence, one flow, Python',
    source: WINDMILL_PYTHON,
  },
  {
    system: 'Temporal',
    figure: '7.247 s',
    measures: "10 long tasks fibo(33) in sequence, Python, v2.34.0 (Windmill's study)",
    source: WINDMILL_PYTHON,
  },
  {
    system: 'Temporal',
    figure: '39.016 s',
    measures: "400 light tasks fibo(10), Go, one worker (Windmill's study)",
    source: WINDMILL_GO,
  },
  {
    system: 'Hatchet',
    figure: '7.793 s',
    measures: "10 long tasks fibo(33) in sequence, Python, v0.62.0 (Windmill's study)",
    source: WINDMILL_PYTHON,
  },
  {
    system: 'Hatchet',
    figure: '100 / 500 / 2,000 runs/s (up to 10k/s on a larger database)',
    measures:
      'throughput at 15% / 60% / 83% CPU of an 8-CPU PostgreSQL (RDS m7g.2xlarge), v0.55.26',
    source: 'https://docs.hatchet.run/self-hosting/benchmarking',
  },
  {
    system: 'Kestra',
    figure: '6.044 s',
    measures: "40 light tasks fibo(10) in sequence, Python, v0.22.3 (Windmill's study)",
    source: WINDMILL_KESTRA,
  },
  {
    system: 'Kestra',
    figure: '15.786 s',
    measures: "10 long tasks fibo(33) in sequence, Python (Windmill's study)",
    source: WINDMILL_PYTHON,
  },
  {
    system: 'Kestra',
    figure: '1,000 executions/min at 0.47 s latency',
    measures:
      'webhook-triggered 2-task flow, OSS on PostgreSQL, 4 vCPU e2-standard-4, v0.23.4 (Kestra)',
    source: 'https://kestra.io/docs/performance/benchmark',
  },
  {
    system: 'n8n',
    figure: 'up to 220 workflow executions/s',
    measures: 'one instance, webhook-triggered workflows (n8n docs)',
    source: 'https://docs.n8n.io/deploy/host-n8n/configure-n8n/scaling/measure-performance',
  },
];
