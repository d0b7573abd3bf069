import { highlightSegments } from "../lib/highlight";

interface Props {
  text: string;
  highlights?: ReadonlyArray<readonly [number, number]>;
}

/** A passage with its matched spans in <mark>: React elements from offsets, never HTML from data. */
export function Highlighted({ text, highlights = [] }: Props) {
  return (
    <>
      {highlightSegments(text, highlights).map((segment, index) =>
        segment.marked ? <mark key={index}>{segment.text}</mark> : <span key={index}>{segment.text}</span>,
      )}
    </>
  );
}
