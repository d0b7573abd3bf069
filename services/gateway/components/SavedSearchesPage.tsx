"use client";

// "Pesquisas salvas" (issue 34, item 1): the person's saved searches, each with the count of works new since their
// last visit beside its name; opening one lists those works and resets the count (POST .../visit). What is new is
// computed by the API under the person's access of now: a document they may not see is never named nor counted.
import { useCallback, useEffect, useState } from "react";
import { apiDelete, callApi } from "../lib/apiClient";
import { apiHref, formatDateTime } from "../lib/format";
import {
  filtersSummary,
  type NewWork,
  newCountLabel,
  newCountTitle,
  newWorkFacts,
  relevanceLabel,
  SAVED_PAGE_SIZE,
  type SavedSearch,
  type SavedSearchNews,
  type SavedSearchPage,
  searchesCount,
  searchHref,
} from "../lib/research";
import "./research.css";

interface ListProps {
  searches: SavedSearch[];
  busy?: boolean;
  onDelete?: (search: SavedSearch) => void;
}

/** Each saved search: its name (opening it), the count of what is new, its query and filters, its actions. */
export function SavedSearchList({ searches, busy = false, onDelete }: ListProps) {
  return (
    <ul className="research-list">
      {searches.map((search) => {
        const filters = filtersSummary(search.filters, search.sort);
        const count = newCountLabel(search.new_count);
        return (
          <li key={search.id} className="research-item">
            <p className="research-name">
              <a href={`/pesquisas?id=${search.id}`}>{search.name}</a>
              {count && (
                <span className="new-count" title={newCountTitle(search.new_count ?? 0)}>
                  {count}
                  <span className="visually-hidden"> desde a sua última visita</span>
                </span>
              )}
            </p>
            <p className="research-query">{search.query}</p>
            {filters && <p className="research-filters">{filters}</p>}
            <p className="research-meta">
              Última visita: <time dateTime={search.last_visited_at}>{formatDateTime(search.last_visited_at)}</time>
              {search.email ? ` · novos por e-mail para ${search.email}` : ""}
            </p>
            <p className="research-actions">
              <a href={searchHref(search.query, search.filters, search.sort)}>Pesquisar agora</a>
              {onDelete && (
                <button type="button" disabled={busy} onClick={() => onDelete(search)} aria-label={`Apagar a pesquisa salva “${search.name}”`}>
                  Apagar
                </button>
              )}
            </p>
          </li>
        );
      })}
    </ul>
  );
}

/** The works new to a search: name (citation or title) opening the document, court and date, grade. */
export function NewWorksList({ works }: { works: NewWork[] }) {
  return (
    <ol className="research-list">
      {works.map((work) => (
        <li key={work.work_id} className="research-item">
          <p className="research-name">
            <a href={apiHref(work.document_url, `/api/documents/${encodeURIComponent(work.document_id)}`)}>
              {work.citation || work.title}
            </a>
          </p>
          {work.citation && work.title !== work.citation && <p className="research-query">{work.title}</p>}
          <p className="research-meta">
            {[newWorkFacts(work), relevanceLabel(work.relevance), `indexado em ${formatDateTime(work.indexed_at)}`]
              .filter(Boolean)
              .join(" · ")}
          </p>
        </li>
      ))}
    </ol>
  );
}

function OneSearch({ id }: { id: number }) {
  const [news, setNews] = useState<SavedSearchNews | null>(null);
  const [error, setError] = useState("");

  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const found = await callApi<SavedSearchNews>(`/saved-searches/${id}`);
        if (!live) return;
        setNews(found);
        await callApi(`/saved-searches/${id}/visit`, { method: "POST" }); // seen: the count starts again from now
      } catch (err) {
        if (live) setError(err instanceof Error ? err.message : String(err));
      }
    })();
    return () => {
      live = false;
    };
  }, [id]);

  if (error) {
    return (
      <div className="research">
        <p className="error" role="alert">
          Não foi possível abrir a pesquisa salva ({error}).
        </p>
        <p>
          <a href="/pesquisas">Voltar às pesquisas salvas</a>
        </p>
      </div>
    );
  }
  if (!news) return <p role="status">Carregando…</p>;
  const { search, new: works } = news;
  const filters = filtersSummary(search.filters, search.sort);
  return (
    <div className="research">
      <p>
        <a href="/pesquisas">← Pesquisas salvas</a>
      </p>
      <h1>{search.name}</h1>
      <p className="research-query">{search.query}</p>
      {filters && <p className="research-filters">{filters}</p>}
      <p>
        <a className="research-run" href={searchHref(search.query, search.filters, search.sort)}>
          Pesquisar agora
        </a>
      </p>
      <h2>Novos desde a sua última visita</h2>
      <p className="research-meta">
        Desde <time dateTime={search.last_visited_at}>{formatDateTime(search.last_visited_at)}</time>, com relevância forte
        ou provável, entre os documentos que você pode ver.
      </p>
      {works.length === 0 ? <p>Nada novo desde a sua última visita.</p> : <NewWorksList works={works} />}
    </div>
  );
}

function AllSearches() {
  const [page, setPage] = useState(1);
  const [answer, setAnswer] = useState<SavedSearchPage | null>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState("");

  const load = useCallback(async (which: number) => {
    setError("");
    try {
      const offset = (which - 1) * SAVED_PAGE_SIZE;
      setAnswer(await callApi<SavedSearchPage>(`/saved-searches?limit=${SAVED_PAGE_SIZE}&offset=${offset}`));
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }, []);
  useEffect(() => void load(page), [load, page]);

  const remove = async (search: SavedSearch) => {
    if (!window.confirm(`Apagar a pesquisa salva “${search.name}”?`)) return;
    setBusy(true);
    try {
      await apiDelete(`/saved-searches/${search.id}`);
      setNote(`Pesquisa salva “${search.name}” apagada.`);
      await load(page);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const last = answer ? Math.max(1, Math.ceil(answer.total / SAVED_PAGE_SIZE)) : 1;
  return (
    <div className="research">
      <h1>Pesquisas salvas</h1>
      <p className="research-intro">
        Ao lado de cada nome, as decisões e documentos novos desde a sua última visita que a pesquisa encontra com
        relevância forte ou provável. Abrir a pesquisa zera a contagem. Para salvar uma, use “Salvar pesquisa” na página
        de pesquisa.
      </p>
      <p className="status" role="status" aria-live="polite">
        {answer === null && !error ? "Carregando…" : note}
      </p>
      {error && (
        <p className="error" role="alert">
          Não foi possível carregar as pesquisas salvas ({error}).
        </p>
      )}
      {answer && answer.total === 0 && <p>Nenhuma pesquisa salva.</p>}
      {answer && answer.items.length > 0 && (
        <>
          <p className="research-total">{answer.total === 1 ? "1 pesquisa salva" : `${searchesCount(answer.total)} salvas`}</p>
          <SavedSearchList searches={answer.items} busy={busy} onDelete={(search) => void remove(search)} />
          {last > 1 && (
            <nav className="pager" aria-label="Páginas das pesquisas salvas">
              <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                Anteriores
              </button>
              <span>
                Página {page} de {last}
              </span>
              <button type="button" disabled={page >= last} onClick={() => setPage(page + 1)}>
                Próximas
              </button>
            </nav>
          )}
        </>
      )}
    </div>
  );
}

export function SavedSearchesPage({ selectedId }: { selectedId: number | null }) {
  return selectedId === null ? <AllSearches /> : <OneSearch id={selectedId} />;
}
