/** @packageDocumentation weft router: routing table, health checker, dispatch and its HTTP routes */
export {};
