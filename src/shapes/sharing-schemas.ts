import { z } from 'zod';
import { ROLES } from '../access/authorize.js';
import { PRINCIPAL_TYPES } from '../access/grant-records.js';
import { SHARE_LABEL_MAX, SHARE_PASSWORD_MAX, SHARE_ROLES } from '../sharing/shares.js';

/** Request and response shapes of /v0/grants and /v0/shares (REFERENCE §2.8, §4). */
const ts = z.string().describe('RFC 3339 timestamp');
const expiresIn = z
  .number()
  .int()
  .min(1)
  .max(10 * 365 * 86400)
  .nullable()
  .optional()
  .describe('seconds from now; null: never expires');
const resource = z.string().min(1).max(300).describe('art_ or fld_ id, or a path in your drive');

export const grantCreateInSchema = z.object({
  resource,
  principal: z.object({
    type: z.enum(PRINCIPAL_TYPES),
    id: z.string().min(1).max(128).nullable().optional(),
    email: z.string().min(3).max(320).nullable().optional(),
  }),
  role: z.enum(ROLES),
  expires_in: expiresIn,
});
export const grantPatchInSchema = z.object({ role: z.enum(ROLES).optional(), expires_in: expiresIn });
export const shareCreateInSchema = z.object({
  resource,
  role: z.enum(SHARE_ROLES).default('viewer'),
  expires_in: expiresIn.describe('seconds from now; null: never; omitted: none for an API key, 7 days for an agent'),
  password: z.string().min(1).max(SHARE_PASSWORD_MAX).nullable().optional(),
  label: z.string().trim().max(SHARE_LABEL_MAX).nullable().optional(),
});
export const resourceQuery = z.object({ resource });

const resourceFields = { drive_id: z.string(), resource_type: z.enum(['artifact', 'folder']), resource_id: z.string() };
export const grantOutSchema = z.object({
  id: z.string(),
  grn_id: z.string(),
  ...resourceFields,
  principal_type: z.enum(PRINCIPAL_TYPES),
  principal_id: z.string().nullable(),
  principal_email: z.string().nullable(),
  role: z.enum(ROLES),
  can_share: z.boolean(),
  can_manage: z.boolean(),
  granted_by_type: z.string(),
  granted_by_id: z.string(),
  on_behalf_of: z.string().nullable(),
  created_at: ts,
  updated_at: ts,
  expires_at: ts.nullable(),
  revoked_at: ts.nullable(),
});
export const shareOutSchema = z.object({
  id: z.string(),
  shr_id: z.string(),
  ...resourceFields,
  role: z.enum(SHARE_ROLES),
  audience: z.string(),
  has_password: z.boolean(),
  label: z.string().nullable().describe("the link's own name, set when it was minted"),
  created_by_type: z.string(),
  created_at: ts,
  expires_at: ts.nullable(),
  rotated_at: ts.nullable(),
  revoked_at: ts.nullable(),
  last_accessed_at: ts.nullable(),
  access_count: z.number().int(),
});
export const shareMintOutSchema = shareOutSchema.extend({ share_key: z.string(), url: z.string() });
