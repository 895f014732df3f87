import { ApiKey } from './api-key.js';
import { Drive } from './drive.js';

/** Every entity the ORM knows; add new ones here. */
export const entities = [Drive, ApiKey];
export { ApiKey, Drive };
