import { z } from 'zod';
import { COMPILE_TASKS, JOB_STATUSES } from '../projects/jobs.js';
import { ENGINES } from '../projects/engine-availability.js';

/** Request and response shapes of the project and compile job endpoints (REFERENCE: ProjectConfigIn, CompileJobIn). */
const ts = z.string().describe('RFC 3339 timestamp');
export const engineSchema = z
  .enum(ENGINES)
  .describe('latex (latexmk + pdflatex) or typst; null picks by the entrypoint extension');

export const projectConfigInSchema = z.object({
  entrypoint: z.string().min(1).max(256).describe('path of the main file, relative to the folder'),
  engine: engineSchema.nullable().optional(),
  auto_compile: z.boolean().default(false),
});

export const compileOptionsSchema = z.object({
  entrypoint: z.string().min(1).max(256).optional(),
  engine: engineSchema.nullable().optional(),
  wait: z.boolean().default(false).describe(`wait (up to COMPILE_WAIT_S) for the job to end before answering`),
});

export const compileJobInSchema = z.object({
  task: z
    .enum(COMPILE_TASKS)
    .optional()
    .describe('default latex.compile; the engine still follows options, config, then extension'),
  options: compileOptionsSchema.default({ wait: false }),
});

export const projectOutSchema = z.object({
  fld_id: z.string(),
  drive_id: z.string(),
  path: z.string(),
  entrypoint: z.string(),
  engine: engineSchema.nullable(),
  auto_compile: z.boolean(),
  created_at: ts,
  updated_at: ts,
  engine_available: z
    .boolean()
    .describe('whether this server can run the engine the config resolves to (the ready line lists the engines)'),
});

const fileRef = z.object({ art_id: z.string(), path: z.string(), version_number: z.number().int() });
export const diagnosticSchema = z.object({
  severity: z.enum(['error', 'warning']),
  file: z.string().nullable(),
  line: z.number().int().nullable(),
  message: z.string(),
});
export const jobStatusSchema = z.enum(JOB_STATUSES);

export const jobOutSchema = z.object({
  job_id: z.string(),
  drive_id: z.string(),
  fld_id: z.string(),
  task: z.string(),
  engine: engineSchema,
  entrypoint: z.string(),
  trigger: z.enum(['api', 'auto_compile']),
  status: jobStatusSchema,
  cancel_requested: z.boolean(),
  attempt: z.number().int(),
  diagnostics: z.array(diagnosticSchema),
  inputs: z.array(fileRef),
  outputs: z.array(fileRef),
  pdf: fileRef.nullable(),
  page_count: z.number().int().nullable(),
  error: z.string().nullable(),
  error_code: z
    .string()
    .nullable()
    .describe(
      'a catalogue code for the failure where there is one (ENGINE_UNAVAILABLE: the engine is not installed here)',
    ),
  engine_available: z.boolean().describe("whether this server can run the job's engine"),
  actor_name: z.string().nullable(),
  workflow_id: z.string(),
  logs_url: z.string(),
  created_at: ts,
  started_at: ts.nullable(),
  finished_at: ts.nullable(),
  duration_ms: z.number().int().nullable(),
});
export const jobListSchema = z.object({ items: z.array(jobOutSchema) });
