import type { AppContext } from '../platform/context.js';
import { graphBuildDuration, graphBuilds } from '../platform/metrics.js';
import { buildSemanticGraph, graphBuilder } from '../search/semantic-graph-build.js';
import type { SemanticGraphInput, SemanticGraphResult } from '../temporal/search-messages.js';

export interface SemanticGraphActivities {
  buildSemanticGraph(input: Pick<SemanticGraphInput, 'driveId'>): Promise<SemanticGraphResult>;
}

export function createSemanticGraphActivities(ctx: AppContext): SemanticGraphActivities {
  const builder = graphBuilder(ctx);
  return {
    async buildSemanticGraph({ driveId }) {
      const stop = graphBuildDuration.startTimer();
      try {
        const result = await buildSemanticGraph(builder, driveId);
        graphBuilds.inc({ outcome: result.passages ? 'built' : 'skipped' });
        return result;
      } catch (err) {
        graphBuilds.inc({ outcome: 'failed' });
        throw err;
      } finally {
        stop();
      }
    },
  };
}
