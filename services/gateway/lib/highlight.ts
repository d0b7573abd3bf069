// The matched spans of a passage as plain segments: the UI renders them as React text (escaped) and <mark>.

export interface Segment {
  text: string;
  marked: boolean;
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

export function highlightSegments(text: string, highlights: ReadonlyArray<readonly [number, number]>): Segment[] {
  const toIndex = utf16Index(text);
  const spans = highlights
    .filter(([start, end]) => Number.isInteger(start) && Number.isInteger(end) && end > start && start >= 0)
    .map(([start, end]) => [toIndex(start), toIndex(end)] as [number, number])
    .map(([start, end]) => [Math.min(start, text.length), Math.min(end, text.length)] as [number, number])
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: [number, number][] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([span[0], span[1]]);
  }
  const segments: Segment[] = [];
  let at = 0;
  for (const [start, end] of merged) {
    if (start > at) segments.push({ text: text.slice(at, start), marked: false });
    segments.push({ text: text.slice(start, end), marked: true });
    at = end;
  }
  if (at < text.length) segments.push({ text: text.slice(at), marked: false });
  return segments;
}
