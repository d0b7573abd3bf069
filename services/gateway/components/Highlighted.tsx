import { highlightSegments, type Segment } from "../lib/highlight";

interface Props {
  text: string;
  highlights?: ReadonlyArray<readonly [number, number]>;
  /** [start, end) of the sentence that carries the query's concept: shown in <strong class="key-sentence">. */
  emphasis?: readonly [number, number] | null;
}

function piece(segment: Segment, key: number) {
  return segment.marked ? <mark key={key}>{segment.text}</mark> : <span key={key}>{segment.text}</span>;
}

/** A passage with its matched spans in <mark>: React elements from offsets, never HTML from data. */
export function Highlighted({ text, highlights = [], emphasis = null }: Props) {
  const segments = highlightSegments(text, highlights, emphasis);
  const first = segments.findIndex((s) => s.emphasised);
  if (first < 0) return <>{segments.map(piece)}</>;
  // The emphasised segments are one run: the sentence is a single range.
  const end = first + segments.slice(first).findIndex((s) => !s.emphasised);
  const last = end < first ? segments.length : end;
  return (
    <>
      {segments.slice(0, first).map((s, i) => piece(s, i))}
      <strong className="key-sentence">{segments.slice(first, last).map((s, i) => piece(s, first + i))}</strong>
      {segments.slice(last).map((s, i) => piece(s, last + i))}
    </>
  );
}
