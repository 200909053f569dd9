export { envFlag, readServerSettings } from './read.js';
export { sandboxSettingsFromEnv, type SandboxSettings } from './sandbox.js';
export { SERVER_SETTINGS, type ServerSettings, type SettingAnnotations } from './schema.js';
export { settingsTable, withSettingsTable } from './table.js';
