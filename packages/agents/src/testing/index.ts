export { ScriptedModelServer, type ScriptedReply, type SeenRequest } from './scripted-server.js';
