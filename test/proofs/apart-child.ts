/**
 * The child process behind `apart.ts`: one proof, a few one after the other, or one
 * encoding check, in a z3 of its own, its report as JSON on stdout. Not a test file;
 * `apart.ts` starts it bundled (a mutant's, its patch applied, by mutants.ts).
 */
import { checkConformance } from '../../proofs/conformance.ts';
import { prove } from '../../proofs/obligations.ts';
import { openZ3 } from '../../proofs/z3.ts';
import { pathToFileURL } from 'node:url';
import type { StepFn } from '../../proofs/conformance.ts';
import type { ApartRequest } from './apart.ts';

const request = JSON.parse(process.argv[2] ?? '') as ApartRequest;
const z3 = await openZ3();
try {
  // a mutant's step, bundled apart (mutants.ts)
  const step = request.stepFrom === undefined ? undefined : ((await import(pathToFileURL(request.stepFrom).href)) as { step: StepFn }).step;
  let report: unknown;
  if (request.kind === 'prove') report = await prove(z3, { ...request.options, ...(step === undefined ? {} : { step }) });
  else if (request.kind === 'prove-each') {
    const reports = [];
    for (const options of request.options) reports.push(await prove(z3, options));
    report = reports;
  } else report = await checkConformance(z3, request.variant, request.faults, step, request.kinds, request.without ?? []);
  process.stdout.write(JSON.stringify(report));
} finally {
  await z3.close();
}
