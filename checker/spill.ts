/**
 * Where the search's queue and parent links go when they outgrow their memory budget
 * (issue 26, item 3: a 200M-state space in 24 bytes a state). TLC keeps its queue and its
 * trace file on disk for the same reason: a state's words and its parent link are read
 * back once (the queue, in order) or a few dozen times (a trace's links), while the
 * visited set is probed at random and must stay in memory.
 *
 * The file lives in a fresh directory under the OS temp dir and is unlinked, and its
 * directory removed, as soon as it is opened: the open descriptor keeps its blocks, and
 * the kernel frees them when the descriptor is closed, at the end of the search or at the
 * process's exit however it ends (Ctrl-C, a terminated worker thread, a kill), so nothing
 * is ever left behind. Where a platform refuses to unlink an open file (Windows), the file
 * is removed at `close` and at the process's exit instead.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How a search spills: the memory each of its queue and its parent links may hold before their chunks go to disk, and the chunks' size. */
export interface SpillSettings {
  /** Bytes the queue, and separately the parent links, keep in memory; chunks beyond go to a temp file. */
  readonly memoryBytes: number;
  /** Bytes per chunk of the queue (and, near it, of the parent links). */
  readonly chunkBytes: number;
  /** The directory the temp files go under; default the OS temp dir. */
  readonly dir?: string;
}

/** The defaults: 256 MiB each (a search of tens of millions of states never spills), 1 MiB chunks. */
export const SPILL_DEFAULTS: SpillSettings = { memoryBytes: 256 << 20, chunkBytes: 1 << 20 };

/** The bytes of a typed array, as the file functions take them. */
const bytesOf = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Paths of files that could not be unlinked while open: removed when the process exits. */
const leftover = new Set<string>();
let exitHook = false;

/** One anonymous scratch file, opened on first use; positional reads and writes of whole arrays. */
export class SpillFile {
  private fd: number | undefined;
  private path: string | undefined;
  /** Bytes written to the file so far (every write counted). */
  bytesWritten = 0;

  constructor(private readonly dir: string = tmpdir()) {}

  /** Opens the file, then unlinks it and its directory (see the module's comment). */
  private open(): number {
    if (this.fd !== undefined) return this.fd;
    const dir = mkdtempSync(join(this.dir, 'pagecheck-spill-'));
    const path = join(dir, 'spill');
    const fd = openSync(path, 'w+');
    try {
      unlinkSync(path);
      rmSync(dir, { recursive: true, force: true });
    } catch {
      this.path = dir;
      leftover.add(dir);
      if (!exitHook) process.once('exit', () => leftover.forEach((d) => rmSync(d, { recursive: true, force: true })));
      exitHook = true;
    }
    this.fd = fd;
    return fd;
  }

  /** Writes all of `data` at byte `position`. */
  write(data: ArrayBufferView, position: number): void {
    const fd = this.open();
    const bytes = bytesOf(data);
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
    this.bytesWritten += bytes.length;
  }

  /** Fills all of `into` from byte `position`; throws if the file ends first. */
  read(into: ArrayBufferView, position: number): void {
    const fd = this.open();
    const bytes = bytesOf(into);
    for (let done = 0; done < bytes.length; ) {
      const n = readSync(fd, bytes, done, bytes.length - done, position + done);
      if (n === 0) throw new Error(`spill file: nothing at byte ${position + done}`);
      done += n;
    }
  }

  /** Closes the file, which frees its blocks. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    if (this.path !== undefined) {
      rmSync(this.path, { recursive: true, force: true });
      leftover.delete(this.path);
      this.path = undefined;
    }
  }
}
