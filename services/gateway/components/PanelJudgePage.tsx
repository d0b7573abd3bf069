"use client";

import { useCallback, useEffect, useState } from "react";
import { callApi } from "../lib/apiClient";
import { apiHref, documentHref, formatDate } from "../lib/format";
import "./resultActions.css";

/** GET /panels/{id}/next: one query's merged list, nothing that says which ranking picked a result. */
interface PanelResult {
  shown_rank: number;
  document_id: string;
  passage_id: number;
  document_title: string;
  document_type_label: string | null;
  court_label: string | null;
  document_date: string | null;
  citation: string | null;
  page_number: number;
  chunk_text: string;
  document_url: string;
  relevant: boolean | null;
}

interface PanelQuery {
  panel_id: string;
  name: string;
  done: boolean;
  position: number | null;
  queries: number;
  judged_queries: number;
  query: string | null;
  results: PanelResult[];
}

interface PanelSummary {
  id: string;
  name: string;
  queries: string[];
  judges: string[];
  a: { name: string };
  b: { name: string };
}

interface PanelReport {
  per_query: { position: number; query: string; judged: number; shown: number; credit_a: number; credit_b: number;
    winner: "a" | "b" | "tie" | null }[];
  wins_a: number;
  wins_b: number;
  ties: number;
  unjudged: number;
  p_value: number;
}

function Judging({ panelId }: { panelId: string }) {
  const [list, setList] = useState<PanelQuery | null>(null);
  const [error, setError] = useState("");
  const [saving, setSaving] = useState<number | null>(null);

  const load = useCallback(async () => {
    setError("");
    try {
      setList(await callApi<PanelQuery>(`/panels/${panelId}/next`));
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }, [panelId]);
  useEffect(() => void load(), [load]);

  const judge = async (result: PanelResult, relevant: boolean) => {
    if (!list?.position || saving !== null) return;
    setSaving(result.shown_rank);
    try {
      await callApi(`/panels/${panelId}/judgments`, {
        method: "POST",
        body: JSON.stringify({ position: list.position, shown_rank: result.shown_rank, relevant }),
      });
      setList({
        ...list,
        results: list.results.map((r) => (r.shown_rank === result.shown_rank ? { ...r, relevant } : r)),
      });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setSaving(null);
    }
  };

  if (error) return <p className="notice" role="alert">Não foi possível: {error}</p>;
  if (!list) return <p role="status">Carregando…</p>;
  if (list.done) return <p role="status">Todas as {list.queries} consultas do painel foram avaliadas. Obrigado!</p>;
  const complete = list.results.every((r) => r.relevant !== null);
  return (
    <section aria-labelledby="consulta">
      <p className="panel-progress">
        Consulta {list.position} de {list.queries} ({list.judged_queries} concluídas)
      </p>
      <h2 id="consulta">{list.query}</h2>
      {list.results.length === 0 && <p>Nenhum resultado para esta consulta.</p>}
      <ol className="panel-results">
        {list.results.map((result) => (
          <li key={result.shown_rank}>
            <h3 id={`resultado-${result.shown_rank}`}>
              <a href={apiHref(result.document_url, documentHref(result.document_id, result.page_number))} target="_blank" rel="noreferrer">
                {result.citation ?? result.document_title}
              </a>
            </h3>
            <p className="panel-meta">
              {[result.document_type_label, result.court_label, formatDate(result.document_date), `p. ${result.page_number}`]
                .filter(Boolean)
                .join(" · ")}
            </p>
            <p className="panel-passage">{result.chunk_text}</p>
            <div className="judgment" role="group" aria-label={`Resultado ${result.shown_rank}`}>
              <span className="judgment-question">Este resultado serve para a consulta?</span>
              <span className="judgment-buttons">
                <button type="button" className="judge-button judge-yes" aria-pressed={result.relevant === true}
                  aria-disabled={saving !== null || undefined} aria-describedby={`resultado-${result.shown_rank}`}
                  onClick={() => void judge(result, true)}>
                  Relevante
                </button>
                <button type="button" className="judge-button judge-no" aria-pressed={result.relevant === false}
                  aria-disabled={saving !== null || undefined} aria-describedby={`resultado-${result.shown_rank}`}
                  onClick={() => void judge(result, false)}>
                  Não relevante
                </button>
              </span>
            </div>
          </li>
        ))}
      </ol>
      <button type="button" onClick={() => void load()} aria-disabled={!complete || undefined} disabled={!complete}>
        Próxima consulta
      </button>
    </section>
  );
}

function Panels() {
  const [panels, setPanels] = useState<PanelSummary[] | null>(null);
  const [report, setReport] = useState<{ id: string; body: PanelReport } | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    callApi<PanelSummary[]>("/panels").then(setPanels, (err) => setError(String(err?.message ?? err)));
  }, []);
  const open = async (id: string) => {
    try {
      setReport({ id, body: await callApi<PanelReport>(`/panels/${id}/report`) });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  if (error) return <p className="notice" role="alert">Não foi possível: {error}</p>;
  if (!panels) return <p role="status">Carregando…</p>;
  if (panels.length === 0) return <p>Nenhum painel. Crie um com <code>precedente panel create</code>.</p>;
  return (
    <>
      <ul className="panel-list">
        {panels.map((p) => (
          <li key={p.id}>
            <a href={`/painel?id=${p.id}`}>{p.name}</a> ({p.id}): {p.queries.length} consultas, A = {p.a.name}, B ={" "}
            {p.b.name}; juízes: {p.judges.join(", ") || "administradores"}{" "}
            <button type="button" onClick={() => void open(p.id)}>
              Resultado
            </button>
          </li>
        ))}
      </ul>
      {report && (
        <section aria-label={`Resultado do painel ${report.id}`}>
          <p>
            Consultas vencidas: A {report.body.wins_a}, B {report.body.wins_b}, empates {report.body.ties}, sem
            avaliação {report.body.unjudged}; teste do sinal p = {report.body.p_value.toPrecision(3)}
          </p>
          <table>
            <thead>
              <tr><th>#</th><th>Consulta</th><th>Avaliados</th><th>A</th><th>B</th><th>Vencedor</th></tr>
            </thead>
            <tbody>
              {report.body.per_query.map((q) => (
                <tr key={q.position}>
                  <td>{q.position}</td><td>{q.query}</td><td>{q.judged}/{q.shown}</td><td>{q.credit_a}</td>
                  <td>{q.credit_b}</td><td>{q.winner === null ? "—" : q.winner === "tie" ? "empate" : q.winner.toUpperCase()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}

/** The judge's page: one query at a time, "Relevante" / "Não relevante" on each result; administrators without an
 * id see the panels and their results. */
export function PanelJudgePage({ panelId, admin }: { panelId: string | null; admin: boolean }) {
  return (
    <div className="panel">
      <h1>Painel de avaliação</h1>
      {panelId ? (
        <Judging panelId={panelId} />
      ) : admin ? (
        <Panels />
      ) : (
        <p className="notice" role="note">
          Abra o link do painel para o qual você foi convidado (por exemplo /painel?id=…).
        </p>
      )}
    </div>
  );
}
