/** A page as every list endpoint answers it (spec 2.4). */
export interface CursorPage<T> {
  items: T[];
  next_cursor: string | null;
}

/**
 * Every item of a listing, following `next_cursor` until it is null. `fetchPage` must resend the same
 * filters each time (the cursor encodes only the position, spec 4.1).
 */
export async function* eachItem<T>(
  fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.items;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
}

/** All items of a listing in one array (for listings known to be small). */
export async function allItems<T>(fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of eachItem(fetchPage)) out.push(item);
  return out;
}
