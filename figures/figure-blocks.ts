/**
 * The marked blocks that hold generated figures in the README and in docs/*.md:
 * `<!-- figure:NAME -->`, the figure's Markdown, `<!-- /figure -->`. Only the text between
 * the markers is generated; everything around it is written by hand, so a figure can sit
 * in a sentence or fill a code block.
 */

/** One marked block found in a file. */
export interface FigureBlock {
  /** The figure's name, from its opening marker. */
  readonly name: string;
  /** The text between the markers, without the newline after the opening marker. */
  readonly body: string;
}

/** Matches a block; the body is lazy, so blocks never swallow each other. */
const BLOCK = /<!-- figure:([a-z0-9-]+) -->\n?([\s\S]*?)<!-- \/figure -->/g;

/** Every block of `text`, in order. */
export function figureBlocks(text: string): FigureBlock[] {
  return [...text.matchAll(BLOCK)].map((m) => ({ name: m[1]!, body: stripNewline(m[2]!) }));
}

/** A body written on its own lines loses the newline before the closing marker; an inline one has none. */
function stripNewline(body: string): string {
  return body.endsWith('\n') ? body.slice(0, -1) : body;
}

/** `text` with every block named in `bodies` given its new body; blocks not named keep theirs. */
export function replaceFigures(text: string, bodies: ReadonlyMap<string, string>): string {
  return text.replace(BLOCK, (whole, name: string, old: string) => {
    const body = bodies.get(name);
    if (body === undefined) return whole;
    // A block whose body began on its own line keeps that layout; an inline one stays inline.
    const multiline = old.startsWith('\n') || whole.startsWith(`<!-- figure:${name} -->\n`) || body.includes('\n');
    return multiline ? `<!-- figure:${name} -->\n${body}\n<!-- /figure -->` : `<!-- figure:${name} -->${body}<!-- /figure -->`;
  });
}
