/** @packageDocumentation weft runtime: executions API, triggers, scheduler and workers */
export {};
