import { availableParallelism } from "node:os";

/**
 * How many test files each vitest project runs at once. Vitest's default outside watch mode is one
 * fewer than the machine's cores — on the 2-core CI machine, one file at a time, so the whole suite
 * ran serially (21 min, a third of it spent importing each file while nothing else ran).
 *
 * Package tests are mostly CPU-bound and own what they touch: one file per core. The root project's files
 * (API, e2e, faults, browser, real clients) start servers, workers, Chromium and the sim model: two at once.
 * Three at once passed the whole suite in 16 min but failed twice on checks that depended on load (an SDK
 * wait that hung when its timeout fired before its subscription was confirmed; a /healthz latency budget,
 * now a bound on the server's event-loop CPU); both are fixed.
 */
export const packageTestFiles = Math.max(2, availableParallelism());
export const processTestFiles = 2;
