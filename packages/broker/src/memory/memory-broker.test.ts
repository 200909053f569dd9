import { describeBrokerContract } from '../broker.contract.js';
import { openTestBroker } from '../test-brokers.js';

describeBrokerContract('in-memory', async () => openTestBroker('memory'));
