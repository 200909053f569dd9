/** Result of taking a token from a rate-limit bucket. */
export interface TokenResult {
  /** True when a token was taken: the request may go on. */
  allowed: boolean;
  /** Milliseconds until a token will be available (0 when allowed). */
  retryAfterMs: number;
}

/** Shape of one token bucket: `capacity` tokens, refilled at `refillPerMs` tokens a millisecond. */
export interface BucketSpec {
  capacity: number;
  refillPerMs: number;
}

/** One schedule fire to claim, or one next fire to store. */
export interface FireKey {
  workflow: string;
  triggerId: string;
  /** Epoch ms (UTC). */
  fireAtMs: number;
}

/** One key of a webhook delivery: its `id` (a delivery id, or a signature) within `scope`. */
export interface DeliveryKey {
  scope: string;
  id: string;
}

/**
 * Storage port of the trigger machinery (webhook replay protection and rate limits, schedule
 * fires). Every operation is atomic, so that several server replicas sharing one database never
 * both accept the same delivery or both run the same scheduled fire.
 */
export interface TriggerStore {
  /** `memory`, `sqlite` or `postgres`, for logs. */
  readonly kind: string;
  /**
   * Remembers delivery `id` of webhook `scope` until `expiresAtMs`. True when it was not seen
   * (or its earlier sighting has expired); false when it is a replay within the window.
   */
  rememberDelivery(scope: string, id: string, nowMs: number, expiresAtMs: number): Promise<boolean>;
  /**
   * Remembers every key of one delivery until `expiresAtMs`, all or none, each noting
   * `executionId` (the execution the delivery starts, shown when it is replayed): -1 when none
   * was seen within its window, else the index of the first that was (and none is kept).
   */
  rememberDeliveries(
    keys: readonly DeliveryKey[],
    nowMs: number,
    expiresAtMs: number,
    executionId: string | undefined,
  ): Promise<number>;
  /** Notes which execution a remembered delivery started (shown when it is replayed). */
  attachExecution(scope: string, id: string, executionId: string): Promise<void>;
  /** The execution a remembered, unexpired delivery started, if known. */
  deliveryExecution(scope: string, id: string, nowMs: number): Promise<string | undefined>;
  /** Forgets a delivery (its execution could not be started, so a retry must be accepted). */
  forgetDelivery(scope: string, id: string): Promise<void>;
  /**
   * Takes one token from bucket `key` at `nowMs`. Shared by every replica on PostgreSQL (one
   * atomic statement); process-local on SQLite and in memory.
   */
  takeToken(key: string, spec: BucketSpec, nowMs: number): Promise<TokenResult>;
  /** The stored next fire (epoch ms, UTC) of schedule `triggerId` of `workflow`. */
  getNextFire(workflow: string, triggerId: string): Promise<number | undefined>;
  /** Stores the next fire of a schedule (epoch ms, UTC). */
  setNextFire(workflow: string, triggerId: string, fireAtMs: number): Promise<void>;
  /** Forgets the schedule state of a workflow (it was undeployed). */
  clearSchedules(workflow: string): Promise<void>;
  /**
   * Claims the fire at `fireAtMs` of a schedule: true for exactly one caller across every
   * replica (a unique key on workflow, trigger and fire time), false for every later one.
   */
  claimFire(workflow: string, triggerId: string, fireAtMs: number, nowMs: number): Promise<boolean>;
  /**
   * Claims many fires in one statement (a scheduler tick with many schedules due at once);
   * resolves with the ones this caller won.
   */
  claimFires(fires: readonly FireKey[], nowMs: number): Promise<FireKey[]>;
  /** Stores the next fire of many schedules in one statement. */
  setNextFires(fires: readonly FireKey[]): Promise<void>;
  /** Deletes expired deliveries and fire claims older than `beforeMs`. */
  prune(nowMs: number, beforeMs: number): Promise<void>;
}
