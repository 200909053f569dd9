import type { EventSource } from '@weft/core';

/**
 * SNS as an event source: SNS pushes to the `POST /sns` endpoint (see `eventRoutes`), so
 * subscribing only records interest; the operator subscribes that URL to the topic in AWS, and
 * the endpoint confirms the subscription for topics a workflow listens to.
 */
export class SnsEventSource implements EventSource {
  readonly kind = 'sns' as const;

  async subscribe(): Promise<() => Promise<void>> {
    return async () => {};
  }

  async close(): Promise<void> {}
}
