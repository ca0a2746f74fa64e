/**
 * The child process behind `apart.ts`: one proof, a few one after the other, or one
 * encoding check, in a z3 of its own, its report as JSON on stdout. Not a test file;
 * `apart.ts` starts it bundled (with tsx for a mutant's step).
 */
import { checkConformance } from '../../proofs/conformance.ts';
import { prove } from '../../proofs/obligations.ts';
import { openZ3 } from '../../proofs/z3.ts';
import type { ApartRequest } from './apart.ts';
import type * as Mutants from './mutants.ts';

const request = JSON.parse(process.argv[2] ?? '') as ApartRequest;
const z3 = await openZ3();
try {
  // Only a mutant's step needs mutants.ts, and only under tsx (it loads the mutant's TypeScript): the bundled child (apart.ts) leaves it out.
  const mutants = request.stepFrom === undefined ? undefined : ((await import(new URL('./mutants.ts', import.meta.url).href)) as typeof Mutants);
  const step = request.stepFrom === undefined ? undefined : await mutants?.mutantStep(request.stepFrom);
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
