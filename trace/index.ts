/**
 * The printers of traces, shared by every producer (checker, model-based tests, replay):
 * text for people, ITF JSON for tools and replay, a Mermaid sequence diagram and a
 * self-contained HTML report. This is the contract the commands call.
 */
export { formatTrace, shouldColor, type TraceFormat } from './text.ts';
export { checkTraceFiles, writeTraceFiles, type TraceFiles } from './files.ts';
export { checkOutputPath, writeOutput, wroteIt, recordPath } from './written.ts';
export { formatItf, toItf, itfVars, ITF_VARS, MBT_VARS, ITF_DESCRIPTION, type ItfTrace, type ItfState, type ItfVars, type ItfPage, type ItfRequest } from './itf.ts';
export { TraceInputError } from './errors.ts';
export { replayItf, ReplayError, type ReplayOptions, type ReplayResult } from './replay.ts';
export { decodeInts, encodeInts, isBigint, option, unwrapOption, type ItfBigint, type ItfEncoded, type ItfOption } from './itf-values.ts';
export { formatMermaid, toMermaid, MERMAID_SIGNATURE } from './mermaid.ts';
export { formatHtml, HTML_SIGNATURE } from './html.ts';
export { explain, type Explanation } from './explain.ts';
export { tell, describeModel, type Story, type StoryStep, type PageCell } from './story.ts';
