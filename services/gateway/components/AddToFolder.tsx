"use client";

import { type FormEvent, useEffect, useRef, useState } from "react";
import { callApi } from "../lib/apiClient";
import { addItemBody, addMessage, type Folder, type FolderList, folderHref, NAME_MAX, NOTE_MAX } from "../lib/folders";
import { errorMessage } from "../lib/problem";
import "./folders.css";

interface Props {
  result: { document_id: string; passage_id?: number | null };
  /** Unique within the page ("pasta-3"). */
  id: string;
  /** The result's heading: a screen reader says which result the button keeps. */
  describedBy: string;
}

const NEW = "";

/**
 * "Adicionar à pasta" on a result card: a button that opens a small form (which folder, or a new one by name, and
 * an optional note) and keeps the result's passage there (POST /folders/{id}/items). The person's folders are
 * asked for only when the form opens, so a page of results costs no request more.
 */
export function AddToFolder({ result, id, describedBy }: Props) {
  const [open, setOpen] = useState(false);
  const [folders, setFolders] = useState<Folder[] | null>(null);
  const [choice, setChoice] = useState(NEW);
  const [name, setName] = useState("");
  const [note, setNote] = useState("");
  const [saving, setSaving] = useState(false);
  const [message, setMessage] = useState("");
  const [kept, setKept] = useState<Folder | null>(null);
  const selectRef = useRef<HTMLSelectElement>(null);

  useEffect(() => {
    if (!open || folders !== null) return;
    callApi<FolderList>("/folders?limit=200")
      .then((list) => {
        setFolders(list.folders);
        if (list.folders.length > 0) setChoice(list.folders[0]!.id);
      })
      .catch((err: unknown) => {
        setFolders([]);
        setMessage(addMessage("failed", "", err instanceof Error ? err.message : ""));
      });
  }, [open, folders]);
  useEffect(() => {
    if (open && folders !== null) selectRef.current?.focus();
  }, [open, folders]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (saving) return;
    setSaving(true);
    try {
      let folder = folders?.find((f) => f.id === choice) ?? null;
      if (!folder) {
        folder = await callApi<Folder>("/folders", { method: "POST", body: JSON.stringify({ name: name.trim() }) });
        setFolders([folder, ...(folders ?? [])]);
        setChoice(folder.id);
      }
      const response = await fetch(`/api/folders/${encodeURIComponent(folder.id)}/items`, {
        method: "POST",
        headers: { accept: "application/json", "content-type": "application/json" },
        body: JSON.stringify(addItemBody(result, note)),
      });
      if (response.status === 401) window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
      if (!response.ok) throw new Error(await errorMessage(response));
      setMessage(addMessage(response.status === 201 ? "added" : "already", folder.name));
      setKept(folder);
      setNote("");
      setOpen(false);
    } catch (err) {
      setMessage(addMessage("failed", "", err instanceof Error ? err.message : ""));
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="add-to-folder">
      <button
        type="button"
        className="link-button add-to-folder-toggle"
        aria-expanded={open}
        aria-controls={`${id}-form`}
        aria-describedby={describedBy}
        onClick={() => setOpen(!open)}
      >
        Adicionar à pasta
      </button>
      {open && (
        <form id={`${id}-form`} className="add-to-folder-form" onSubmit={(event) => void onSubmit(event)}>
          {folders === null ? (
            <p className="muted">Carregando suas pastas…</p>
          ) : (
            <>
              <label htmlFor={`${id}-pasta`}>Pasta</label>
              <select id={`${id}-pasta`} ref={selectRef} value={choice} onChange={(event) => setChoice(event.target.value)}>
                {folders.map((folder) => (
                  <option key={folder.id} value={folder.id}>
                    {folder.name}
                  </option>
                ))}
                <option value={NEW}>Nova pasta…</option>
              </select>
              {choice === NEW && (
                <>
                  <label htmlFor={`${id}-nome`}>Nome da nova pasta</label>
                  <input
                    id={`${id}-nome`}
                    required
                    maxLength={NAME_MAX}
                    value={name}
                    placeholder="Cliente Acme: rescisão"
                    onChange={(event) => setName(event.target.value)}
                  />
                </>
              )}
              <label htmlFor={`${id}-nota`}>Nota (opcional): por que este trecho importa para o caso</label>
              <textarea id={`${id}-nota`} rows={2} maxLength={NOTE_MAX} value={note} onChange={(event) => setNote(event.target.value)} />
              <button type="submit" aria-disabled={saving || undefined}>
                Adicionar
              </button>
            </>
          )}
        </form>
      )}
      <span className="add-to-folder-status" role="status" aria-live="polite">
        {message}
        {kept && message && !message.startsWith("Não") && (
          <>
            {" "}
            <a href={folderHref(kept.id)}>Ver a pasta</a>
          </>
        )}
      </span>
    </div>
  );
}
