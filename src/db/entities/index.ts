import { AgentIdentity } from './agent-identity.js';
import { ApiKey } from './api-key.js';
import { ClaimAttempt } from './claim-attempt.js';
import { Drive } from './drive.js';
import { HumanUser } from './human-user.js';

/** Every entity the ORM knows; add new ones here. */
export const entities = [Drive, ApiKey, AgentIdentity, ClaimAttempt, HumanUser];
export { AgentIdentity, ApiKey, ClaimAttempt, Drive, HumanUser };
