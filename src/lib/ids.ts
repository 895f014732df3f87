import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * Ids are `<prefix>_<time><random>`: 10 characters of millisecond time then 16 random ones,
 * both in lowercase Crockford base32, so ids are URL-safe and sort by creation time.
 */
export type IdPrefix =
  | 'drv'
  | 'aid'
  | 'art'
  | 'fld'
  | 'grn'
  | 'shr'
  | 'fbk'
  | 'key'
  | 'upl'
  | 'job'
  | 'evt'
  | 'ver'
  | 'cla'
  | 'usr'
  | 'whk'
  | 'dlv'
  | 'snp'
  | 'lse';

export function newId(prefix: IdPrefix): string {
  let time = Date.now();
  let timePart = '';
  for (let i = 0; i < 10; i++) {
    timePart = CROCKFORD[time % 32] + timePart;
    time = Math.floor(time / 32);
  }
  return `${prefix}_${timePart}${randomToken(16)}`;
}

/** Random characters from the base32 alphabet. */
export function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += CROCKFORD[bytes[i] % 32];
  return out;
}

/** The whole-string pattern of an id with this prefix (route parameters, request fields, hasPrefix). */
export const idPattern = (prefix: IdPrefix) => new RegExp(`^${prefix}_[0-9a-z]{26}$`);

export function hasPrefix(value: string, prefix: IdPrefix): boolean {
  return idPattern(prefix).test(value);
}
