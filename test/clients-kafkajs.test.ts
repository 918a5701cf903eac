/** kafkajs 2.2.4 (in this process) through the real-client scenario of test/support/clients/harness.ts. */

import { clientSuite } from "./support/clients/harness.js";
import { KAFKAJS_CODECS, runKafkajs } from "./support/clients/kafkajs.js";

clientSuite({
  client: "kafkajs 2.2.4",
  missing: () => null,
  codecs: KAFKAJS_CODECS,
  admin: true,
  transactions: true,
  run: runKafkajs,
});
