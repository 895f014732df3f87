import type { Client, WorkflowStartOptions } from '@temporalio/client';

/**
 * The custom search attributes every workflow the service starts carries (docs/decisions/operations.md), so ops can
 * ask the Temporal UI `DriveId = "drv_…"` (a drive's work) or `JobId = "job_…"`, beside the built-in
 * `WorkflowType` and `ExecutionStatus`. All Keyword: exact match, no tokenising. One list for the embedded dev server
 * (`--search-attribute`), docker-compose (`temporal operator search-attribute create`) and the worker's boot check.
 */
export const SEARCH_ATTRIBUTES = {
  DriveId: 'Keyword',
  /** A compile job (`job_…`). */
  JobId: 'Keyword',
  /** A project folder (`fld_…`): its compile jobs and its auto-compile debouncer. */
  ProjectId: 'Keyword',
  /** A large upload session (`upl_…`). */
  UploadId: 'Keyword',
  /** An outbox drainer's topic (search, wiki, compile, webhook). */
  OutboxTopic: 'Keyword',
} as const;

export type SearchAttributeName = keyof typeof SEARCH_ATTRIBUTES;

/** What the workflow is for and whom it concerns: its search attributes and a one-line memo (the UI shows both). */
export interface WorkflowTags {
  purpose: string;
  attributes: Partial<Record<SearchAttributeName, string>>;
}

type TaggedOptions = Pick<WorkflowStartOptions, 'memo' | 'typedSearchAttributes' | 'staticSummary'>;

/**
 * Start options carrying the tags. Keys are `{name, type}` pairs, what @temporalio/common's
 * `defineSearchAttributeKey` returns (that package is no direct dependency).
 */
export function tagged({ purpose, attributes }: WorkflowTags): TaggedOptions {
  return {
    memo: { purpose },
    staticSummary: purpose,
    typedSearchAttributes: Object.entries(attributes)
      .filter((e): e is [SearchAttributeName, string] => typeof e[1] === 'string')
      .map(([name, value]) => ({ key: { name, type: 'KEYWORD' as const }, value })),
  };
}

/** `temporal server start-dev` flags registering the attributes at the dev server's start. */
export const devServerSearchAttributeFlags = (): string[] =>
  Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]);

/** temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD (@temporalio/proto is no direct dependency). */
const INDEXED_VALUE_TYPE_KEYWORD = 2;

export class SearchAttributesMissingError extends Error {}

/**
 * Registers the attributes the namespace lacks (the worker runs this at boot; idempotent: it lists first, so a
 * second worker or a restart adds nothing). A cluster that refuses (no operator rights, e.g. a Cloud API key without
 * them) is a clear start-up error naming the command an operator runs once, rather than every workflow start failing
 * later with "search attribute is not defined".
 */
export async function ensureSearchAttributes(client: Client, namespace: string): Promise<string[]> {
  const operator = client.connection.operatorService;
  const missing = async () => {
    const { customAttributes } = await operator.listSearchAttributes({ namespace });
    return Object.keys(SEARCH_ATTRIBUTES).filter((name) => !customAttributes?.[name]) as SearchAttributeName[];
  };
  const absent = await missing();
  if (!absent.length) return [];
  try {
    await operator.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(absent.map((name) => [name, INDEXED_VALUE_TYPE_KEYWORD])),
    });
  } catch (err) {
    // Another worker may have added them meanwhile: only what is still absent is an error.
    if (!(await missing()).length) return absent;
    const commands = absent
      .map((n) => `temporal operator search-attribute create -n ${namespace} --name ${n} --type Keyword`)
      .join('; ');
    throw new SearchAttributesMissingError(
      `Temporal namespace ${namespace} lacks the search attributes ${absent.join(', ')} and refused to add them ` +
        `(${(err as Error).message}). Register them once: ${commands}`,
    );
  }
  return absent;
}
