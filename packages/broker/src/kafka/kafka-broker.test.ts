import { describe, it } from 'vitest';
import { describeBrokerContract } from '../broker.contract.js';
import { openTestBroker } from '../test-brokers.js';

const brokers = process.env['WEFT_TEST_KAFKA_BROKERS'];

if (brokers === undefined) {
  describe.skip('Broker contract: Kafka (set WEFT_TEST_KAFKA_BROKERS=host:port,... to run it)', () => {
    it('needs a Kafka cluster', () => undefined);
  });
} else {
  describeBrokerContract('Kafka', async () => openTestBroker('kafka', brokers));
}
