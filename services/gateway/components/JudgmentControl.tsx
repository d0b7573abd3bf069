"use client";

import { type FormEvent, useEffect, useRef, useState } from "react";
import { judgmentMessage } from "../lib/judgments";
import "./resultActions.css";
import type { Judgment } from "../lib/types";

interface Props {
  /** The person's judgment of this result for this query, if any. */
  judgment: Judgment | null | undefined;
  /** Saves a judgment (POST /judgments); throws with the API's detail when refused. */
  onJudge: (relevant: boolean, note: string | null) => Promise<void>;
  /** Unique within the page ("avaliacao-3"). */
  id: string;
  /** The result's heading: a screen reader says which result a button judges. */
  describedBy: string;
}

/**
 * "Relevante" / "Não relevante" for one result: toggle buttons (aria-pressed) that save at once and can be
 * changed; an optional note once judged. A button being saved stays focusable (aria-disabled, not disabled),
 * so the keyboard's place is never lost.
 */
export function JudgmentControl({ judgment, onJudge, id, describedBy }: Props) {
  const [saving, setSaving] = useState(false);
  const [message, setMessage] = useState("");
  const [noteOpen, setNoteOpen] = useState(false);
  const [note, setNote] = useState(judgment?.note ?? "");
  const noteRef = useRef<HTMLTextAreaElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const noteSaved = useRef(false);
  useEffect(() => setNote(judgment?.note ?? ""), [judgment?.note]);
  useEffect(() => {
    if (noteOpen) noteRef.current?.focus();
    else if (noteSaved.current) toggleRef.current?.focus(); // the form is gone: the keyboard goes on from its button
    noteSaved.current = false;
  }, [noteOpen]);
  const relevant = judgment ? judgment.relevant : null;

  const send = async (value: boolean, text: string | null): Promise<boolean> => {
    if (saving) return false;
    setSaving(true);
    try {
      await onJudge(value, text);
      setMessage(judgmentMessage("saved", value));
      return true;
    } catch (err) {
      setMessage(judgmentMessage("failed", value, err instanceof Error ? err.message : ""));
      return false;
    } finally {
      setSaving(false);
    }
  };
  const onNote = async (event: FormEvent) => {
    event.preventDefault();
    if (judgment && (await send(judgment.relevant, note))) {
      noteSaved.current = true;
      setNoteOpen(false);
    }
  };

  return (
    <div className="judgment" role="group" aria-labelledby={`${id}-pergunta`}>
      <span id={`${id}-pergunta`} className="judgment-question">
        Este resultado serve para a sua pesquisa?
      </span>
      <span className="judgment-buttons">
        <button
          type="button"
          className="judge-button judge-yes"
          aria-pressed={relevant === true}
          aria-disabled={saving || undefined}
          aria-describedby={describedBy}
          onClick={() => void send(true, note)}
        >
          Relevante
        </button>
        <button
          type="button"
          className="judge-button judge-no"
          aria-pressed={relevant === false}
          aria-disabled={saving || undefined}
          aria-describedby={describedBy}
          onClick={() => void send(false, note)}
        >
          Não relevante
        </button>
        {judgment && (
          <button
            type="button"
            ref={toggleRef}
            className="link-button judge-note-toggle"
            aria-expanded={noteOpen}
            aria-controls={`${id}-nota`}
            onClick={() => setNoteOpen(!noteOpen)}
          >
            {judgment.note ? "Editar nota" : "Acrescentar nota"}
          </button>
        )}
      </span>
      {judgment?.note && !noteOpen && <p className="judgment-note">Sua nota: {judgment.note}</p>}
      {judgment && noteOpen && (
        <form id={`${id}-nota`} className="judgment-note-form" onSubmit={(event) => void onNote(event)}>
          <label htmlFor={`${id}-texto`}>Nota (opcional): por que serve ou não serve</label>
          <textarea
            id={`${id}-texto`}
            ref={noteRef}
            rows={2}
            maxLength={2000}
            value={note}
            onChange={(event) => setNote(event.target.value)}
          />
          <button type="submit">Salvar nota</button>
        </form>
      )}
      <span className="judgment-status" role="status" aria-live="polite">
        {message}
      </span>
    </div>
  );
}
