"use client";

// "Histórico" (issue 34, item 5): the person's own recent searches, each re-run from a link, deleted one by one or
// all at once. The API shows nobody else's (services/search/routers/history.py).
import { useCallback, useEffect, useState } from "react";
import { apiDelete, callApi } from "../lib/apiClient";
import { formatDateTime, worksCount } from "../lib/format";
import {
  filtersSummary,
  HISTORY_PAGE_SIZE,
  type HistoryEntry,
  type HistoryPage as HistoryAnswer,
  searchesCount,
  searchHref,
} from "../lib/research";
import "./research.css";

interface ListProps {
  entries: HistoryEntry[];
  busy?: boolean;
  onDelete?: (entry: HistoryEntry) => void;
}

/** The entries, the latest first: the query, when, what it found, its filters, "Repetir" and "Apagar". */
export function HistoryList({ entries, busy = false, onDelete }: ListProps) {
  return (
    <ol className="research-list">
      {entries.map((entry) => {
        const filters = filtersSummary(entry.filters, entry.sort);
        return (
          <li key={entry.id} className="research-item">
            <p className="research-query">
              <a href={searchHref(entry.query, entry.filters, entry.sort)}>{entry.query}</a>
            </p>
            {filters && <p className="research-filters">{filters}</p>}
            <p className="research-meta">
              <time dateTime={entry.at}>{formatDateTime(entry.at)}</time> · {worksCount(entry.results)}
            </p>
            <p className="research-actions">
              <a href={searchHref(entry.query, entry.filters, entry.sort)} aria-label={`Repetir a pesquisa “${entry.query}”`}>
                Repetir
              </a>
              {onDelete && (
                <button type="button" disabled={busy} onClick={() => onDelete(entry)} aria-label={`Apagar “${entry.query}” do histórico`}>
                  Apagar
                </button>
              )}
            </p>
          </li>
        );
      })}
    </ol>
  );
}

export function HistoryPage() {
  const [page, setPage] = useState(1);
  const [answer, setAnswer] = useState<HistoryAnswer | null>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState("");

  const load = useCallback(async (which: number) => {
    setError("");
    try {
      const offset = (which - 1) * HISTORY_PAGE_SIZE;
      setAnswer(await callApi<HistoryAnswer>(`/history?limit=${HISTORY_PAGE_SIZE}&offset=${offset}`));
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }, []);
  useEffect(() => void load(page), [load, page]);

  const remove = async (entry: HistoryEntry) => {
    setBusy(true);
    try {
      await apiDelete(`/history/${entry.id}`);
      setNote(`“${entry.query}” apagada do histórico.`);
      await load(page);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const clearAll = async () => {
    if (!window.confirm("Apagar todo o seu histórico de pesquisas?")) return;
    setBusy(true);
    try {
      const cleared = await callApi<{ deleted: number }>("/history", { method: "DELETE" });
      setNote(`Histórico apagado: ${searchesCount(cleared.deleted)}.`);
      setPage(1);
      await load(1);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const last = answer ? Math.max(1, Math.ceil(answer.total / HISTORY_PAGE_SIZE)) : 1;
  return (
    <div className="research">
      <h1>Histórico</h1>
      <p className="research-intro">
        Suas pesquisas recentes, com os filtros e a ordem usados. Só você as vê
        {answer ? `; ficam guardadas por ${answer.retention_days} dias` : ""}.
      </p>
      <p className="status" role="status" aria-live="polite">
        {note}
      </p>
      {error && (
        <p className="error" role="alert">
          Não foi possível carregar o histórico ({error}).
        </p>
      )}
      {answer && answer.total === 0 && <p>Nenhuma pesquisa no seu histórico.</p>}
      {answer && answer.items.length > 0 && (
        <>
          <p className="research-total">
            {searchesCount(answer.total)}
            <button type="button" className="research-clear" disabled={busy} onClick={() => void clearAll()}>
              Limpar histórico
            </button>
          </p>
          <HistoryList entries={answer.items} busy={busy} onDelete={(entry) => void remove(entry)} />
          {last > 1 && (
            <nav className="pager" aria-label="Páginas do histórico">
              <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                Mais recentes
              </button>
              <span>
                Página {page} de {last}
              </span>
              <button type="button" disabled={page >= last} onClick={() => setPage(page + 1)}>
                Mais antigas
              </button>
            </nav>
          )}
        </>
      )}
    </div>
  );
}
