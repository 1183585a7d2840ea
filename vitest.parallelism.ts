import { availableParallelism } from "node:os";

/**
 * How many test files each vitest project runs at once. Vitest's default outside watch mode is one
 * fewer than the machine's cores — on the 2-core CI machine, one file at a time, so the whole suite
 * ran serially (21 min, a third of it spent importing each file while nothing else ran).
 *
 * Package tests are mostly CPU-bound: one file per core. The root project's files (API, e2e, faults,
 * browser, real clients) mostly wait on processes they started — servers, workers, Chromium, the sim
 * model over HTTP — so one more file than there are cores keeps the cores busy. Every such test owns
 * what it touches (a temporary data folder, its own Redis key prefix or redis-server, port 0), and
 * builds or installs that two files could both start are taken under a lock.
 */
export const packageTestFiles = Math.max(2, availableParallelism());
export const processTestFiles = availableParallelism() + 1;
