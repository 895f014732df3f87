import type { AppContext } from '../platform/context.js';
import { buildSemanticGraph, graphBuilder } from '../search/semantic-graph-build.js';
import type { SemanticGraphInput, SemanticGraphResult } from '../temporal/search-messages.js';

export interface SemanticGraphActivities {
  buildSemanticGraph(input: Pick<SemanticGraphInput, 'driveId'>): Promise<SemanticGraphResult>;
}

export function createSemanticGraphActivities(ctx: AppContext): SemanticGraphActivities {
  const builder = graphBuilder(ctx);
  return {
    async buildSemanticGraph({ driveId }) {
      return buildSemanticGraph(builder, driveId);
    },
  };
}
