import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Drive, driveMemoryHandlers, driveMemoryTool, MemoryToolError } from '../../packages/client/src/index.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';

/** The client's memory backend for the Anthropic TypeScript SDK, its handlers called as the SDK's runner calls them. */
let api: TestApi;
let drive: Drive;
beforeAll(async () => {
  api = await startTestApi();
  const { apiKey } = await createTenant(api.ctx);
  drive = new Drive({ baseUrl: api.url, credential: { apiKey } });
}, 120_000);
afterAll(async () => api?.close());

describe('driveMemoryTool', () => {
  it('is a runnable memory_20250818 tool whose run answers the reference strings and throws the error ones', async () => {
    const tool = driveMemoryTool(drive);
    expect([tool.type, tool.name]).toEqual(['memory_20250818', 'memory']);
    const input = tool.parse({ command: 'create', path: '/memories/plan.md', file_text: 'step 1\n' });
    expect(await tool.run(input)).toBe('File created successfully at: /memories/plan.md');
    const handlers = driveMemoryHandlers(drive);
    expect(await handlers.view({ command: 'view', path: '/memories/plan.md' })).toBe(
      "Here's the content of /memories/plan.md with line numbers:\n     1\tstep 1\n     2\t",
    );
    const failed = handlers.create({ command: 'create', path: '/memories/plan.md', file_text: 'x' });
    await expect(failed).rejects.toThrow(MemoryToolError);
    await expect(failed).rejects.toThrow('File /memories/plan.md already exists');
  });
});
