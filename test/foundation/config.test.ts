import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/lib/config.js';

describe('config', () => {
  it('defaults durations and limits to the spec values', () => {
    const c = loadConfig({});
    expect(c.durations.accessTokenS).toBe(900);
    expect(c.durations.claimWindowS).toBe(600);
    expect(c.durations.unclaimedInactivityS).toBe(48 * 3600);
    expect(c.durations.unclaimedMaxAgeS).toBe(30 * 24 * 3600);
    expect(c.limits.maxUploadBytes).toBe(50 * 1024 * 1024);
    expect(c.limits.writeBudgetPerHour).toBe(100);
    expect(c.http.port).toBe(8080);
  });

  it('names the bad variable in its error', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'not a url' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ S3_BUCKET: 'Bad_Bucket' })).toThrow(/S3_BUCKET: must be a valid S3 bucket name/);
  });
});
