import { z } from 'zod';
import { artifactPath } from './artifact-schemas.js';

/** UploadBeginIn / UploadBeginOut (names from the product's published interface; see REFERENCE.md §4, §2). */
export const uploadBeginInSchema = z.object({
  path: artifactPath('artifact path'),
  size_bytes: z.number().int().min(1).describe('exact size of the object that will be PUT to upload_url'),
  content_type: z
    .string()
    .optional()
    .describe(
      'content type of the artifact; omitted keeps the current one on overwrite, application/octet-stream on create',
    ),
  crc32c: z.string().optional().describe('base64 of the big-endian CRC-32C of the bytes; checked at commit'),
  // Typed loosely so that a malformed value is the spec's 400 (INVALID_LABELS/METADATA/SOURCE), not a 422.
  labels: z
    .unknown()
    .optional()
    .describe('array of labels (lowercase [a-z0-9_-]+, at most 64 chars, at most 16); null or absent keeps'),
  metadata: z.unknown().optional().describe('JSON object; null or absent keeps; present replaces'),
  source: z
    .unknown()
    .optional()
    .describe('{"refs": [{"type", "id", "metadata"?}]}; null or absent keeps; present replaces'),
  actor_name: z
    .string()
    .nullable()
    .optional()
    .describe('event attribution, at most 64 chars; defaults to X-Drive-Actor'),
  change_summary: z.string().nullable().optional().describe('at most 1000 chars; recorded on the version'),
  if_match: z
    .number()
    .int()
    .min(1)
    .max(999_999_999)
    .nullable()
    .optional()
    .describe('expected current version number, checked at commit (412)'),
});

export const uploadBeginOutSchema = z.object({
  upload_id: z.string(),
  upload_url: z
    .string()
    .nullable()
    .describe(
      'presigned object-storage URL; PUT the raw bytes there with no Authorization header. Null when the size needs parts (see parts)',
    ),
  method: z.literal('PUT'),
  headers: z.record(z.string(), z.string()).describe('headers the PUT must carry exactly (they are signed)'),
  expires_at: z.string().describe('RFC 3339; the session and the URL end then'),
  max_bytes: z.number().int().describe('the object must be exactly this many bytes (size_bytes)'),
  parts: z
    .array(
      z.object({
        part_number: z.number().int(),
        size_bytes: z.number().int(),
        url: z.string(),
        headers: z.record(z.string(), z.string()),
      }),
    )
    .optional()
    .describe(
      'only above the single-PUT limit: PUT bytes [ (n-1)*part size, ... ) of the file to each part url (any order, retries allowed), then commit',
    ),
});
