/**
 * Markdown building blocks. Doc comments are wrapped at about 90 columns in the source;
 * the document re-flows them, so that a change of wrapping in the spec changes nothing
 * here while a change of wording does.
 */

/** A block of a doc comment: a paragraph, or a list of items. */
export type Block = { readonly kind: 'paragraph'; readonly text: string } | { readonly kind: 'list'; readonly items: readonly string[] };

/** Splits comment text into paragraphs and `- ` lists, joining wrapped lines. */
function blocks(text: string): Block[] {
  const out: Block[] = [];
  for (const chunk of text.split(/\n\s*\n/)) {
    let paragraph: string[] = [];
    let items: string[] = [];
    const flushParagraph = (): void => {
      if (paragraph.length > 0) out.push({ kind: 'paragraph', text: paragraph.join(' ') });
      paragraph = [];
    };
    const flushList = (): void => {
      if (items.length > 0) out.push({ kind: 'list', items });
      items = [];
    };
    for (const raw of chunk.split('\n')) {
      const line = raw.trim();
      if (line === '') continue;
      if (line.startsWith('- ')) {
        flushParagraph();
        items.push(line.slice(2));
      } else if (items.length > 0 && /^\s/.test(raw)) {
        // An indented line continues the list item above it.
        items[items.length - 1] += ` ${line}`;
      } else {
        flushList();
        paragraph.push(line);
      }
    }
    flushParagraph();
    flushList();
  }
  return out;
}

/** Comment text as Markdown: paragraphs re-flowed, lists kept, blocks separated by a blank line. */
export function prose(text: string): string {
  return blocks(text)
    .map((b) => (b.kind === 'paragraph' ? b.text : b.items.map((i) => `- ${i}`).join('\n')))
    .join('\n\n');
}

/** The paragraphs and lists of comment text, for callers that take it apart. */
export function proseBlocks(text: string): Block[] {
  return blocks(text);
}

/** Comment text on one line, safe inside a table cell. */
export function cell(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
}

/** A Markdown table. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** A fenced block. */
export function fence(language: string, body: string): string {
  return `\`\`\`${language}\n${body.replace(/\n+$/, '')}\n\`\`\``;
}

/** Inline code, for names. */
export function code(text: string): string {
  return `\`${text}\``;
}

/** The anchor GitHub gives a heading, for the table of contents. */
export function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

/** A `##` section: its heading and its body. */
export interface Section {
  /** The heading, without the `## `. */
  readonly heading: string;
  /** The body, Markdown. */
  readonly body: string;
}
