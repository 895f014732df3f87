import { z } from 'zod';

/**
 * What the language model returns for one artifact, and what is stored as its `llm_index`
 * (REFERENCE §1: `{summary, outline, entities, concepts}`). One zod schema is both the JSON schema
 * sent as the structured-output contract and the validator of the reply; limits that a strict
 * provider schema cannot express (lengths, counts) are applied after validation by `normalizeIndex`.
 */
export const ENTITY_TYPES = [
  'person',
  'organization',
  'place',
  'product',
  'project',
  'event',
  'work',
  'other',
] as const;

export const llmIndexSchema = z.object({
  summary: z.string().describe('two to four sentences: what the document is and says'),
  outline: z.array(z.string()).describe("the document's sections or main points, in order, one short line each"),
  entities: z
    .array(
      z.object({
        name: z.string().describe('the canonical name, as a heading would show it'),
        type: z.enum(ENTITY_TYPES),
        description: z.string().describe('what THIS document says about the entity, one to three sentences'),
      }),
    )
    .describe(
      'named people, organizations, places, products, projects, events and works the document is substantially about',
    ),
  concepts: z
    .array(
      z.object({
        name: z.string().describe('the concept\'s usual name, singular, e.g. "Transactional outbox"'),
        description: z.string().describe('what THIS document says about the concept, one to three sentences'),
      }),
    )
    .describe('ideas, methods, techniques and topics the document explains or relies on'),
});

export type LlmIndex = z.infer<typeof llmIndexSchema>;

/** The JSON schema of the reply for `response_format.json_schema.schema` (strict: every field required, no extras). */
export function llmIndexJsonSchema(): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(llmIndexSchema, { target: 'draft-7' }) as Record<
    string,
    unknown
  >;
  return schema;
}

const LIMITS = { summary: 2000, outline: 100, outlineLine: 300, items: 50, name: 200, description: 1000 };

const clean = (s: string, max: number) => s.replace(/\s+/g, ' ').trim().slice(0, max);

/** Trims, caps lengths and counts, and drops items without a name. */
export function normalizeIndex(v: LlmIndex): LlmIndex {
  return {
    summary: clean(v.summary, LIMITS.summary),
    outline: v.outline
      .map((l) => clean(l, LIMITS.outlineLine))
      .filter(Boolean)
      .slice(0, LIMITS.outline),
    entities: v.entities
      .map((e) => ({
        name: clean(e.name, LIMITS.name),
        type: e.type,
        description: clean(e.description, LIMITS.description),
      }))
      .filter((e) => e.name)
      .slice(0, LIMITS.items),
    concepts: v.concepts
      .map((c) => ({ name: clean(c.name, LIMITS.name), description: clean(c.description, LIMITS.description) }))
      .filter((c) => c.name)
      .slice(0, LIMITS.items),
  };
}

/** A stored llm_index read back (a jsonb column); null when it does not have the expected shape. */
export function storedIndex(v: unknown): LlmIndex | null {
  const parsed = llmIndexSchema.safeParse(v);
  return parsed.success ? parsed.data : null;
}
