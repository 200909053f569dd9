import { describe, it } from 'vitest';
import { describeBrokerContract } from '../broker.contract.js';
import { openTestBroker } from '../test-brokers.js';

const url = process.env['WEFT_TEST_NATS_URL'];

if (url === undefined) {
  describe.skip('Broker contract: NATS JetStream (set WEFT_TEST_NATS_URL to run it)', () => {
    it('needs a NATS server with JetStream', () => undefined);
  });
} else {
  describeBrokerContract('NATS JetStream', async () => openTestBroker('nats', url));
}
