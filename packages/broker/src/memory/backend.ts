import type { BrokerHeaders } from '@weft/core';
import type { RawDelivery } from '../delivery.js';

/** A stored message. */
interface Stored {
  seq: number;
  subject: string;
  data: Uint8Array;
  headers: BrokerHeaders;
  key: string | undefined;
}

/** A member of a group: takes deliveries while it has room. */
export interface MemoryMember {
  readonly ackTimeoutMs: number;
  /** False once its client closed: deliveries it holds are left to time out. */
  alive: boolean;
  /** Deliveries it may still take. */
  room(): number;
  take(delivery: RawDelivery): void;
}

interface Unacked {
  deliveries: number;
  /** Deadline while in flight, undefined while waiting to be delivered again. */
  deadline: number | undefined;
  holder: MemoryMember | undefined;
}

class Group {
  cursor: number;
  readonly unacked = new Map<number, Unacked>();
  /** In-flight seqs by deadline order of (re)insertion. */
  readonly inFlight = new Map<number, number>();
  readonly ready: number[] = [];
  readonly members: MemoryMember[] = [];
  private turn = 0;
  private sweeper: NodeJS.Timeout | undefined;
  scheduled = false;

  constructor(
    readonly topic: Topic,
    cursor: number,
  ) {
    this.cursor = cursor;
  }

  /** Smallest seq this group still needs. */
  floor(): number {
    const first = this.unacked.keys().next();
    return first.done ? this.cursor : Math.min(first.value, this.cursor);
  }

  nextMember(): MemoryMember | undefined {
    for (let i = 0; i < this.members.length; i++) {
      const member = this.members[(this.turn + i) % this.members.length]!;
      if (member.alive && member.room() > 0) {
        this.turn = (this.turn + i + 1) % this.members.length;
        return member;
      }
    }
    return undefined;
  }

  armSweeper(): void {
    if (this.sweeper !== undefined || this.members.length === 0) return;
    const every = Math.max(10, Math.min(...this.members.map((m) => m.ackTimeoutMs)) / 10);
    this.sweeper = setInterval(() => this.sweep(), every);
    this.sweeper.unref();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [seq, deadline] of this.inFlight) {
      if (deadline > now) break;
      this.inFlight.delete(seq);
      const entry = this.unacked.get(seq);
      if (entry === undefined) continue;
      entry.deadline = undefined;
      entry.holder = undefined;
      this.ready.push(seq);
    }
    if (this.inFlight.size === 0 && this.unacked.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
    this.topic.schedule(this);
  }
}

class Topic {
  /** Messages from seq `base` on. */
  log: Stored[] = [];
  base = 1;
  readonly groups = new Map<string, Group>();

  constructor(readonly maxRetained: number) {}

  get lastSeq(): number {
    return this.base + this.log.length - 1;
  }

  get(seq: number): Stored | undefined {
    return this.log[seq - this.base];
  }

  schedule(group: Group): void {
    if (group.scheduled) return;
    group.scheduled = true;
    queueMicrotask(() => {
      group.scheduled = false;
      this.pump(group);
    });
  }

  pump(group: Group): void {
    for (;;) {
      let seq = group.ready[0];
      if (seq === undefined && group.cursor > this.lastSeq) return;
      const member = group.nextMember();
      if (member === undefined) return;
      if (seq !== undefined) group.ready.shift();
      else seq = group.cursor++;
      const stored = this.get(seq);
      if (stored === undefined) continue;
      const entry = group.unacked.get(seq) ?? {
        deliveries: 0,
        deadline: undefined,
        holder: undefined,
      };
      if (entry.deadline !== undefined) continue; // delivered again meanwhile
      entry.deliveries++;
      entry.deadline = Date.now() + member.ackTimeoutMs;
      entry.holder = member;
      group.unacked.set(seq, entry);
      group.inFlight.delete(seq);
      group.inFlight.set(seq, entry.deadline);
      group.armSweeper();
      member.take(this.delivery(group, stored, entry, member));
    }
  }

  private delivery(
    group: Group,
    stored: Stored,
    entry: Unacked,
    member: MemoryMember,
  ): RawDelivery {
    const holds = () =>
      member.alive && entry.holder === member && group.unacked.get(stored.seq) === entry;
    return {
      subject: stored.subject,
      data: stored.data,
      headers: stored.headers,
      key: stored.key,
      id: String(stored.seq),
      deliveryCount: entry.deliveries,
      ack: async () => {
        if (!holds()) return;
        group.unacked.delete(stored.seq);
        group.inFlight.delete(stored.seq);
        this.trim();
      },
      nak: async (delayMs) => {
        if (!holds()) return;
        group.inFlight.delete(stored.seq);
        entry.deadline = undefined;
        entry.holder = undefined;
        const again = () => {
          if (group.unacked.get(stored.seq) !== entry || entry.deadline !== undefined) return;
          group.ready.push(stored.seq);
          this.schedule(group);
        };
        if (delayMs <= 0) again();
        else setTimeout(again, delayMs).unref();
      },
      working: () => {
        if (!holds()) return;
        entry.deadline = Date.now() + member.ackTimeoutMs;
        group.inFlight.delete(stored.seq);
        group.inFlight.set(stored.seq, entry.deadline);
      },
    };
  }

  /** Drops messages every group has acknowledged (or the oldest past `maxRetained`). */
  trim(): void {
    let floor = this.lastSeq + 1;
    if (this.groups.size === 0) floor = this.lastSeq + 1 - this.maxRetained;
    for (const group of this.groups.values()) floor = Math.min(floor, group.floor());
    const drop = floor - this.base;
    if (drop >= 1024 || (drop > 0 && drop === this.log.length)) {
      this.log = this.log.slice(drop);
      this.base = floor;
    }
  }
}

/**
 * The shared state of in-memory brokers: topics with their logs and consumer groups. Several
 * {@link MemoryBroker} clients may share one backend (replicas in one process, crash tests).
 */
export class MemoryBackend {
  private readonly topics = new Map<string, Topic>();

  /** `maxRetained`: messages kept for groups that do not exist yet (default 1,000,000). */
  constructor(private readonly maxRetained = 1_000_000) {}

  private topic(subject: string): Topic {
    let topic = this.topics.get(subject);
    if (topic === undefined) {
      topic = new Topic(this.maxRetained);
      this.topics.set(subject, topic);
    }
    return topic;
  }

  /** Appends a message and wakes the groups of its subject. */
  append(subject: string, data: Uint8Array, headers: BrokerHeaders, key: string | undefined): void {
    const topic = this.topic(subject);
    topic.log.push({ seq: topic.lastSeq + 1, subject, data, headers, key });
    if (topic.groups.size === 0) topic.trim();
    for (const group of topic.groups.values()) topic.schedule(group);
  }

  /** Adds a member to a group (created at the start or the end of the log). */
  join(
    subject: string,
    name: string,
    member: MemoryMember,
    startFrom: 'earliest' | 'latest',
  ): void {
    const topic = this.topic(subject);
    let group = topic.groups.get(name);
    if (group === undefined) {
      group = new Group(topic, startFrom === 'earliest' ? topic.base : topic.lastSeq + 1);
      topic.groups.set(name, group);
    }
    group.members.push(member);
    group.armSweeper();
    topic.schedule(group);
  }

  /** Removes a member; its in-flight deliveries time out and go to other members. */
  leave(subject: string, name: string, member: MemoryMember): void {
    const group = this.topics.get(subject)?.groups.get(name);
    if (group === undefined) return;
    const index = group.members.indexOf(member);
    if (index >= 0) group.members.splice(index, 1);
  }

  /** Wakes a group (a member has room again). */
  wake(subject: string, name: string): void {
    const topic = this.topics.get(subject);
    const group = topic?.groups.get(name);
    if (topic !== undefined && group !== undefined) topic.schedule(group);
  }

  /** Messages the group has not acknowledged (all retained ones when it does not exist yet). */
  pending(subject: string, name: string): number {
    const topic = this.topics.get(subject);
    if (topic === undefined) return 0;
    const group = topic.groups.get(name);
    if (group === undefined) return topic.log.length;
    return group.unacked.size + Math.max(0, topic.lastSeq - group.cursor + 1);
  }
}
