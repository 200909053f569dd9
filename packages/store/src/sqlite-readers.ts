import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** A row as the database returns it. */
type Row = Record<string, unknown>;

/** Most statements each thread keeps prepared (the registry's hot reads need a handful). */
const MAX_STATEMENTS = 64;
/** How long {@link SqliteReaders.close} waits for a thread before ending it. */
const STOP_TIMEOUT_MS = 5000;

/**
 * A thread's code (a CommonJS eval worker): a read-only connection of its own to the file, its
 * statements prepared once, one read per message, answered in the order asked.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const statements = new Map();
parentPort.on('message', (message) => {
  if (message === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    let statement = statements.get(message.text);
    if (!statement) {
      if (statements.size >= workerData.maxStatements) statements.clear();
      statement = db.prepare(message.text);
      statements.set(message.text, statement);
    }
    parentPort.postMessage({ id: message.id, rows: statement.all(...message.params) });
  } catch (error) {
    parentPort.postMessage({
      id: message.id,
      error: { message: String((error && error.message) || error), code: error && error.code },
    });
  }
});
`;

interface Pending {
  resolve: (rows: Row[]) => void;
  reject: (error: Error) => void;
}

/** One reading thread and the reads it has not answered yet. */
interface Reader {
  worker: Worker;
  pending: Map<number, Pending>;
}

/** The error a thread reported, with SQLite's code (`SQLITE_BUSY`, ...) kept. */
function readError(error: { message: string; code?: string }): Error {
  return Object.assign(new Error(error.message), error.code ? { code: error.code } : {});
}

/** A BLOB arrives as a plain `Uint8Array`; callers of better-sqlite3 expect a `Buffer`. */
function withBuffers(rows: Row[]): Row[] {
  for (const row of rows) {
    for (const key in row) {
      const value = row[key];
      if (value instanceof Uint8Array && !Buffer.isBuffer(value)) {
        row[key] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      }
    }
  }
  return rows;
}

/**
 * Read-only connections to an SQLite file (WAL), each in a thread of its own, for the
 * registry's hot reads (search, detail, API keys): a read runs off the event loop, so a slow
 * one (a one-letter prefix ranks thousands of matches, ~7 ms at 10,000 plugins) no longer holds
 * up every request queued behind it, answers from the cache among them; and reads use the
 * cores the event loop does not. WAL lets readers run beside the writer: each read sees what
 * was committed when it began, never a write under way, so a read asked for after a commit
 * sees it. A thread that fails takes its reads with it (they fail); when none is left,
 * {@link available} is false and the caller reads on its own connection.
 */
export class SqliteReaders {
  private readers: Reader[] = [];
  private next = 0;
  private ids = 0;
  private closing: Promise<void> | undefined;

  constructor(file: string, count: number) {
    const module = createRequire(import.meta.url).resolve('better-sqlite3');
    for (let i = 0; i < count; i++) {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { module, file, maxStatements: MAX_STATEMENTS },
      });
      const reader: Reader = { worker, pending: new Map() };
      // Referenced only while a read is under way: idle threads do not keep the process alive.
      worker.unref();
      worker.on('message', (message: { id: number; rows?: Row[]; error?: { message: string } }) =>
        this.answer(reader, message),
      );
      worker.on('error', (error) => this.lose(reader, error));
      worker.on('exit', (code) => this.lose(reader, new Error(`SQLite reader exited (${code})`)));
      this.readers.push(reader);
    }
  }

  /** Whether a thread is left to read on. */
  get available(): boolean {
    return this.readers.length > 0 && this.closing === undefined;
  }

  /** Every row of `text` run with `params`, read by the least busy thread. */
  all(text: string, params: readonly unknown[]): Promise<Row[]> {
    let reader = this.readers[this.next++ % this.readers.length];
    for (const other of this.readers) {
      if (reader === undefined || other.pending.size < reader.pending.size) reader = other;
    }
    if (reader === undefined || this.closing) {
      return Promise.reject(new Error('the SQLite readers are closed'));
    }
    const id = ++this.ids;
    const chosen = reader;
    return new Promise<Row[]>((resolve, reject) => {
      if (chosen.pending.size === 0) chosen.worker.ref();
      chosen.pending.set(id, { resolve, reject });
      chosen.worker.postMessage({ id, text, params });
    });
  }

  /** Stops every thread once the reads under way are answered. */
  close(): Promise<void> {
    this.closing ??= Promise.all(
      this.readers.map(
        ({ worker }) =>
          new Promise<void>((resolve) => {
            worker.ref();
            const deadline = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
            worker.once('exit', () => {
              clearTimeout(deadline);
              resolve();
            });
            worker.postMessage('stop');
          }),
      ),
    ).then(() => undefined);
    return this.closing;
  }

  private answer(
    reader: Reader,
    message: { id: number; rows?: Row[]; error?: { message: string; code?: string } },
  ): void {
    const pending = reader.pending.get(message.id);
    if (!pending) return;
    reader.pending.delete(message.id);
    if (reader.pending.size === 0) reader.worker.unref();
    if (message.error) pending.reject(readError(message.error));
    else pending.resolve(withBuffers(message.rows ?? []));
  }

  /** A thread that failed or ended: its reads fail, and reads go to the others. */
  private lose(reader: Reader, error: Error): void {
    this.readers = this.readers.filter((r) => r !== reader);
    for (const { reject } of reader.pending.values()) reject(error);
    reader.pending.clear();
  }
}
