"use client";

// "Salvar pesquisa" on the search page (issue 34, item 1): the search shown, its filters and order, under a name
// (the query by default) and, optionally, an address for the daily e-mail of what is new.
import { type FormEvent, useId, useState } from "react";
import { callApi } from "../lib/apiClient";
import { type SavedSearch, saveBody } from "../lib/research";
import type { ApiFilters, SearchSort } from "../lib/types";
import "./research.css";

interface Props {
  query: string;
  filters: ApiFilters;
  sort: SearchSort;
}

export function SaveSearchButton({ query, filters, sort }: Props) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [saved, setSaved] = useState<SavedSearch | null>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const id = useId();

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError("");
    try {
      const body = saveBody(name, query, filters, sort, email);
      setSaved(await callApi<SavedSearch>("/saved-searches", { method: "POST", body: JSON.stringify(body) }));
      setOpen(false);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  if (saved) {
    return (
      <p className="save-search saved" role="status">
        Pesquisa salva como <a href={`/pesquisas?id=${saved.id}`}>“{saved.name}”</a>.
      </p>
    );
  }
  if (!open) {
    return (
      <button
        type="button"
        className="save-search"
        onClick={() => {
          setName(query.trim().slice(0, 200));
          setOpen(true);
        }}
      >
        Salvar pesquisa
      </button>
    );
  }
  return (
    <form className="save-search-form" onSubmit={(event) => void onSubmit(event)} aria-label="Salvar pesquisa">
      <label htmlFor={`${id}-nome`}>Nome</label>
      <input id={`${id}-nome`} value={name} maxLength={200} required onChange={(e) => setName(e.target.value)} />
      <label htmlFor={`${id}-email`}>E-mail para os novos (opcional)</label>
      <input id={`${id}-email`} type="email" value={email} maxLength={254} onChange={(e) => setEmail(e.target.value)} />
      <button type="submit" disabled={busy}>
        Salvar
      </button>
      <button type="button" onClick={() => setOpen(false)}>
        Cancelar
      </button>
      {error && (
        <p className="error" role="alert">
          Não foi possível salvar ({error}).
        </p>
      )}
    </form>
  );
}
