export function errorEnvelope(code: string, message: string, extra: Record<string, unknown> = {}) {
  return { detail: { error: { code, message, ...extra } } };
}
