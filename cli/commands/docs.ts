/**
 * `pagecheck docs [--out docs/SPEC.md] [--check]`: writes the specification document
 * generated from the spec, or with `--check` fails (exit 1) naming the sections in which
 * the file on disk is stale. It never overwrites a file that it did not generate.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describeStale, DOCS_COMMAND, generateDocument, REPO_ROOT, SPEC_DOCUMENT, staleSections } from '../../docs/generate/index.ts';
import { checkOutputPath, writeOutput } from '../../trace/written.ts';
import { EXIT, UsageError } from '../errors.ts';
import { readInputText } from '../read-input.ts';

/** What `pagecheck docs` was asked to do. */
export interface DocsRequest {
  /** `--out`: the file, as the user typed it; the repository's `docs/SPEC.md` when absent. */
  readonly out?: string;
  /** `--check`: compare instead of writing. */
  readonly check?: boolean;
  /** `--force`: overwrite an `--out` file pagecheck has no record of writing. */
  readonly force?: boolean;
}

/** Where the command reports, and how it builds the document (a test may hand it a cheaper one). */
export interface DocsIo {
  /** Normal output. */
  readonly stdout: (line: string) => void;
  /** Problems. */
  readonly stderr: (line: string) => void;
  /** The document's text. */
  readonly generate: () => string;
}

/** The file's text, `undefined` when there is none; a directory or an unreadable file is the user's to fix. */
function readExisting(path: string, shown: string): string | undefined {
  if (!existsSync(path)) return undefined;
  if (statSync(path).isDirectory()) throw new UsageError(`--out ${shown}: is a directory; name the Markdown file to write`);
  // Read with the byte-counting limit: `--check --out /dev/zero` must end.
  return readInputText(path, '--out');
}

/** Runs the command; the exit code. */
export function runDocs(request: DocsRequest, io: DocsIo): number {
  const shown = request.out ?? SPEC_DOCUMENT;
  const path = request.out ?? join(REPO_ROOT, SPEC_DOCUMENT);
  // The repository's own document is always pagecheck's to regenerate; any other file must be one pagecheck wrote, or --force.
  if (request.out !== undefined && request.check !== true) checkOutputPath('--out', request.out, request.force === true);
  const existing = readExisting(path, shown);
  if (request.check === true) {
    if (existing === undefined) {
      io.stderr(`${shown} does not exist; run ${DOCS_COMMAND}`);
      return EXIT.violation;
    }
    const differences = staleSections(io.generate(), existing);
    if (differences.length === 0) {
      io.stdout(`${shown} is up to date`);
      return EXIT.ok;
    }
    io.stderr(`${shown} is stale; run ${DOCS_COMMAND}\n${describeStale(differences)}`);
    return EXIT.violation;
  }
  const text = io.generate();
  if (existing === text) {
    io.stdout(`${shown} is already up to date`);
    return EXIT.ok;
  }
  writeOutput('--out', path, text);
  const changed = existing === undefined ? [] : staleSections(text, existing).map((d) => d.section);
  io.stdout(`wrote ${shown}${existing === undefined ? ' (new file)' : ` (changed: ${changed.join(', ')})`}`);
  return EXIT.ok;
}

/** Registers the command. */
export function register(program: Command): void {
  program
    .command('docs')
    .description('write the specification document generated from the spec\'s doc comments and checker runs')
    .option('--out <file>', `where to write it (default: the repository's ${SPEC_DOCUMENT})`)
    .option('--check', 'write nothing; exit 1, naming the sections that differ, when the file is stale')
    .option('--force', 'overwrite --out even though pagecheck has no record of writing it')
    .action((flags: { out?: string; check?: boolean; force?: boolean }) => {
      const request: DocsRequest = {
        ...(flags.out === undefined ? {} : { out: flags.out }),
        ...(flags.check === true ? { check: true } : {}),
        ...(flags.force === true ? { force: true } : {}),
      };
      const code = runDocs(request, {
        stdout: (line) => process.stdout.write(`${line}\n`),
        stderr: (line) => process.stderr.write(`${line}\n`),
        generate: () => generateDocument(),
      });
      if (code !== EXIT.ok) process.exitCode = code;
    });
}
