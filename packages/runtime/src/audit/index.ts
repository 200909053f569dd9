export { AuditLog, type AuditEvent, type AuditLogger, type AuditOptions } from './audit-log.js';
export { auditHash } from './hash.js';
export { MemoryAuditStore } from './memory-audit-store.js';
export { verifyAuditChain } from './verify.js';
export { encodeAuditCursor, decodeAuditCursor } from './cursor.js';
