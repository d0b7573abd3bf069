// The matched spans of a passage as plain segments: the UI renders them as React text (escaped) and <mark>.

export interface Segment {
  text: string;
  marked: boolean;
  /** Inside the sentence that carries the query's concept (the API's explanation_span); absent outside it. */
  emphasised?: true;
}

/** Code-point offsets (as Python counts) to UTF-16 indices (as JavaScript strings count). */
function utf16Index(text: string): (codePoint: number) => number {
  if (!/[\uD800-\uDFFF]/.test(text)) return (i) => i;
  const starts: number[] = [];
  let index = 0;
  for (const char of text) {
    starts.push(index);
    index += char.length;
  }
  starts.push(index);
  return (i) => starts[Math.min(i, starts.length - 1)] ?? index;
}

/** [start, end) code-point offsets in UTF-16 indices, clipped to the text; null when empty or invalid. */
function toRange(text: string, toIndex: (i: number) => number, span: readonly [number, number]): [number, number] | null {
  const [start, end] = span;
  if (!Number.isInteger(start) || !Number.isInteger(end) || end <= start || start < 0) return null;
  const from = Math.min(toIndex(start), text.length);
  const to = Math.min(toIndex(end), text.length);
  return to > from ? [from, to] : null;
}

/**
 * The passage cut at its matched spans (marked) and, when given, at the emphasised sentence: a segment is
 * wholly inside or outside each, so the UI can nest <mark> inside the sentence's element.
 */
export function highlightSegments(
  text: string,
  highlights: ReadonlyArray<readonly [number, number]>,
  emphasis?: readonly [number, number] | null,
): Segment[] {
  const toIndex = utf16Index(text);
  const spans = highlights
    .map((span) => toRange(text, toIndex, span))
    .filter((span): span is [number, number] => span !== null)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: [number, number][] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([span[0], span[1]]);
  }
  const plain: Segment[] = [];
  let at = 0;
  for (const [start, end] of merged) {
    if (start > at) plain.push({ text: text.slice(at, start), marked: false });
    plain.push({ text: text.slice(start, end), marked: true });
    at = end;
  }
  if (at < text.length) plain.push({ text: text.slice(at), marked: false });
  const sentence = emphasis ? toRange(text, toIndex, emphasis) : null;
  if (!sentence) return plain;
  const [from, to] = sentence;
  const segments: Segment[] = [];
  let offset = 0;
  for (const segment of plain) {
    const start = offset;
    const end = offset + segment.text.length;
    offset = end;
    const cuts = [start, Math.min(Math.max(from, start), end), Math.min(Math.max(to, start), end), end];
    for (let k = 0; k < 3; k += 1) {
      const [a, b] = [cuts[k]!, cuts[k + 1]!];
      if (b <= a) continue;
      const piece: Segment = { text: text.slice(a, b), marked: segment.marked };
      if (k === 1) piece.emphasised = true;
      segments.push(piece);
    }
  }
  return segments;
}
