import { Client, Connection } from '@temporalio/client';
import type { Config } from '../lib/config.js';

export async function createTemporalClient(temporal: Config['temporal']): Promise<Client> {
  if (!temporal.address) throw new Error('TEMPORAL_ADDRESS is not set');
  const connection = await Connection.connect({ address: temporal.address });
  return new Client({ connection, namespace: temporal.namespace });
}
