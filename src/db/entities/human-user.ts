import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A person who signs in to the web pages (claim, dashboard). Password stored as scrypt only. */
export const HumanUser = defineEntity({
  name: 'HumanUser',
  tableName: 'human_users',
  properties: {
    id: p.string().primary(),
    email: p.string(),
    passwordHash: p.string(),
    /**
     * When the owner followed a verification link; null: the address is not proven (src/identity/email-
     * verification.ts).
     */
    emailVerifiedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type HumanUserRow = InferEntity<typeof HumanUser>;
