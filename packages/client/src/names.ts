import { ok, type DriveClient } from './client.js';

/** A person's file name and the spec path the server's name rule maps it to (GET /v0/paths/suggest). */
export interface NameSuggestion {
  name: string;
  path: string;
  mapped: boolean;
}

/** A name every path rule already accepts maps to itself, so it needs no request. */
const PLAIN_SEGMENT = /^[A-Za-z0-9_.-]+$/;

/**
 * Maps file names (or relative paths) to drive paths with the server's one rule, as one batch (two names that would
 * share a path are numbered). Names the path rule already accepts are kept without asking.
 */
export async function suggestPaths(client: DriveClient, names: string[]): Promise<NameSuggestion[]> {
  const plain = (n: string) => n.split('/').every((s) => PLAIN_SEGMENT.test(s) && s !== '.' && s !== '..');
  if (names.every(plain)) return names.map((name) => ({ name, path: name, mapped: false }));
  const out: NameSuggestion[] = [];
  for (let i = 0; i < names.length; i += 100) {
    const page = await ok(
      client.api.GET('/v0/paths/suggest', { params: { query: { name: names.slice(i, i + 100) } } }),
    );
    out.push(...page.items);
  }
  return out;
}

/** X-Drive-Filename's value: RFC 8187 (`UTF-8''…`), so any name travels in an ASCII header. */
export const filenameHeader = (name: string) =>
  `UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
