import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

/** SQLite's default `wal_autocheckpoint`, restored when the background thread is gone. */
const AUTOCHECKPOINT_PAGES = 1000;
/** How often the thread checkpoints while the WAL grows. */
const INTERVAL_MS = 50;
/**
 * The longest wait between two checkpoints of a WAL that stopped growing: each idle check
 * doubles the wait from INTERVAL_MS up to this, and the first new frame brings it back, so an
 * idle server wakes the thread once a second instead of 20 times.
 */
const IDLE_INTERVAL_MS = 1000;
/**
 * WAL frames (pages) past which the writer finishes a checkpoint itself: under a steady load the
 * thread never catches up with the last commit, and only a checkpoint that did lets the next
 * write start the WAL over (256 MiB at 4 KiB pages). The writer stalls for that checkpoint's
 * fsyncs: at 8,192 frames it stalled 10–19 ms every ~0.5 s of saturated webhook load (p99 26–28
 * ms); at 65,536, 30–70 ms every ~4 s (p99 17–20 ms), with the truncation of {@link
 * JOURNAL_SIZE_LIMIT} that followed it then. Readers are not slowed by a long WAL: they
 * search only the frames the thread has not copied yet.
 */
const CATCH_UP_FRAMES = 65_536;
/** How long {@link SqliteCheckpointer.stop} waits for the thread before ending it. */
const STOP_TIMEOUT_MS = 5000;
/**
 * WAL file size kept after the WAL starts over (bytes): twice what {@link CATCH_UP_FRAMES} lets
 * it reach (~270 MB at 4 KiB pages), so a steady load never truncates it. The commit that starts
 * the WAL over truncates a longer file: truncating it from ~270 MB to 64 MiB made that commit
 * take 50–82 ms on the event loop at nearly every restart (~every 4 s of saturated webhook
 * load), after the catch-up checkpoint's own 3–48 ms; kept whole, no commit took over 21 ms.
 * The file is deleted when the store closes, as SQLite does; until then it is written over.
 */
const JOURNAL_SIZE_LIMIT = 512 * 1024 * 1024;

/**
 * The thread's code (a CommonJS eval worker): its own connection to the file, a PASSIVE
 * checkpoint every INTERVAL_MS while the WAL grows and up to IDLE_INTERVAL_MS apart while it
 * does not (it never blocks the writer), and a message to the writer when the WAL keeps growing.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
let timer;
let delay = workerData.intervalMs;
let last = -1;
const tick = () => {
  try {
    const [state] = db.pragma('wal_checkpoint(PASSIVE)');
    if (state && state.log >= workerData.catchUpFrames) parentPort.postMessage({ log: state.log });
    // Nothing written since the last look (the WAL is as long and all copied): wait longer.
    const idle = state && state.log === last && state.checkpointed === state.log;
    delay = idle ? Math.min(delay * 2, workerData.idleIntervalMs) : workerData.intervalMs;
    last = state ? state.log : -1;
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
  timer = setTimeout(tick, delay);
};
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearTimeout(timer);
  db.close();
  parentPort.close();
});
parentPort.postMessage({ ready: true });
tick();
`;

/**
 * Checkpoints an SQLite file's WAL in a background thread. By default SQLite checkpoints in the
 * writer, right after the commit that passes 1000 WAL pages, and that checkpoint's copy and
 * fsync (~50% of a small commit's cost on the CI machine) stall the event loop. With the thread
 * running, the writer's automatic checkpoints are off; commits stay as durable as before
 * (`synchronous = NORMAL`: a commit survives a crash of the process, the checkpoint's fsync
 * keeps the file consistent across a power loss). When the thread fails or stops, automatic
 * checkpoints come back.
 */
export class SqliteCheckpointer {
  private worker: Worker | undefined;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly database: BetterSqlite3.Database,
    private readonly file: string,
    private readonly timing: { intervalMs?: number; catchUpFrames?: number } = {},
  ) {}

  /** Starts the thread (once; later calls do nothing). */
  start(): void {
    if (this.worker || this.stopping) return;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        module: createRequire(import.meta.url).resolve('better-sqlite3'),
        file: this.file,
        intervalMs: this.timing.intervalMs ?? INTERVAL_MS,
        idleIntervalMs: Math.max(this.timing.intervalMs ?? INTERVAL_MS, IDLE_INTERVAL_MS),
        catchUpFrames: this.timing.catchUpFrames ?? CATCH_UP_FRAMES,
      },
    });
    worker.unref();
    worker.on('message', (message: { ready?: boolean; log?: number; error?: string }) => {
      if (message.ready) {
        this.database.pragma('wal_autocheckpoint = 0');
        this.database.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
      } else if (message.log !== undefined) {
        this.catchUp();
      } else if (message.error !== undefined) {
        // A checkpoint that failed (busy, I/O): the writer checkpoints again until it works.
        this.restoreAutomatic();
      }
    });
    worker.on('error', () => this.restoreAutomatic());
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
      this.restoreAutomatic();
    });
    this.worker = worker;
  }

  /** Stops the thread and waits for it to close its connection. */
  stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return Promise.resolve();
    this.stopping ??= new Promise<void>((resolve) => {
      // Unreferenced, the thread would not keep the process alive until it has exited.
      worker.ref();
      // A thread stuck in a checkpoint (a hung disk) is ended after a while.
      const deadline = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
      worker.once('exit', () => {
        clearTimeout(deadline);
        resolve();
      });
      worker.postMessage('stop');
    });
    return this.stopping;
  }

  /** The writer finishes the checkpoint (most pages are copied already) so the WAL can restart. */
  private catchUp(): void {
    if (!this.database.open || this.database.inTransaction) return;
    this.database.pragma('wal_checkpoint(PASSIVE)');
  }

  private restoreAutomatic(): void {
    if (this.database.open) this.database.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  }
}
