import {
  deadLetterSubjectOf,
  SUBJECT_PATTERN,
  ValidationError,
  type ConsumeOptions,
} from '@weft/core';

/** {@link ConsumeOptions} with every default filled in and checked. */
export interface CompiledConsumeOptions {
  subject: string;
  group: string;
  maxDeliveries: number;
  ackTimeoutMs: number;
  retryDelayMs: number;
  concurrency: number;
  deadLetterSubject: string;
  startFrom: 'earliest' | 'latest';
  onDeadLetter: NonNullable<ConsumeOptions['onDeadLetter']> | undefined;
  onError: (error: unknown) => void;
}

/** Consumer group names: letters, digits, `_`, `-` and `.`, at most 128. */
export const GROUP_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** Throws a `ValidationError` when `subject` is not a valid subject. */
export function checkSubject(subject: unknown, field = 'subject'): string {
  if (typeof subject !== 'string' || subject.length > 255 || !SUBJECT_PATTERN.test(subject)) {
    throw new ValidationError(`${field} ${JSON.stringify(subject)} is not a valid subject`, {
      field,
      constraint: 'dot-separated tokens of letters, digits, _ and -; at most 255 characters',
    });
  }
  return subject;
}

function integer(value: unknown, field: string, min: number, max: number, fallback: number) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ValidationError(`${field} must be an integer from ${min} to ${max}`, {
      field,
      constraint: `integer in [${min}, ${max}]`,
    });
  }
  return value;
}

/** Checks consume options and fills the defaults of the port's documentation. */
export function compileConsumeOptions(
  subject: string,
  options: ConsumeOptions,
): CompiledConsumeOptions {
  checkSubject(subject);
  if (typeof options.group !== 'string' || !GROUP_PATTERN.test(options.group)) {
    throw new ValidationError(`group ${JSON.stringify(options.group)} is not a valid group name`, {
      field: 'group',
      constraint: '1 to 128 letters, digits, _, - or .',
    });
  }
  const deadLetterSubject = checkSubject(
    options.deadLetterSubject ?? deadLetterSubjectOf(subject),
    'deadLetterSubject',
  );
  if (deadLetterSubject === subject) {
    throw new ValidationError('deadLetterSubject must differ from the consumed subject', {
      field: 'deadLetterSubject',
      constraint: 'not the consumed subject',
    });
  }
  const startFrom = options.startFrom ?? 'earliest';
  if (startFrom !== 'earliest' && startFrom !== 'latest') {
    throw new ValidationError('startFrom must be "earliest" or "latest"', {
      field: 'startFrom',
      constraint: 'earliest | latest',
    });
  }
  return {
    subject,
    group: options.group,
    maxDeliveries: integer(options.maxDeliveries, 'maxDeliveries', 1, 1000, 5),
    ackTimeoutMs: integer(options.ackTimeoutMs, 'ackTimeoutMs', 100, 3_600_000, 30_000),
    retryDelayMs: integer(options.retryDelayMs, 'retryDelayMs', 0, 3_600_000, 1_000),
    concurrency: integer(options.concurrency, 'concurrency', 1, 10_000, 64),
    deadLetterSubject,
    startFrom,
    onDeadLetter: options.onDeadLetter,
    onError: options.onError ?? (() => undefined),
  };
}
