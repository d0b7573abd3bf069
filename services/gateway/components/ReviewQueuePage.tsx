"use client";

import { useCallback, useEffect, useState } from "react";
import { formatDateTime, percent } from "../lib/format";
import { errorMessage } from "../lib/problem";
import type { ReviewDetail, ReviewQueue } from "../lib/types";

const REASONS: Record<string, string> = {
  low_ocr_confidence: "OCR com baixa confiança",
  password_protected: "Protegido por senha",
  no_text: "Sem texto legível",
  unknown: "Outro motivo",
};

function reasonLabel(code: string | null): string {
  return REASONS[code ?? "unknown"] ?? code ?? "Outro motivo";
}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(`/api${path}`, {
    ...init,
    headers: { accept: "application/json", ...(init?.body ? { "content-type": "application/json" } : {}) },
  });
  if (response.status === 401) {
    window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
    throw new Error("sessão expirada");
  }
  if (!response.ok) throw new Error(await errorMessage(response)); // a problem document's detail
  return (await response.json()) as T;
}

interface Props {
  selectedId: string | null;
}

export function ReviewQueuePage({ selectedId }: Props) {
  const [queue, setQueue] = useState<ReviewQueue | null>(null);
  const [detail, setDetail] = useState<ReviewDetail | null>(null);
  const [selected, setSelected] = useState<string | null>(selectedId);
  const [message, setMessage] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [drafts, setDrafts] = useState<Record<number, string>>({});
  const [rejectReason, setRejectReason] = useState("");
  const [dpi, setDpi] = useState("400");

  const loadQueue = useCallback(async () => {
    try {
      setQueue(await call<ReviewQueue>("/review"));
    } catch (err) {
      setError(`Não foi possível carregar a fila: ${(err as Error).message}`);
    }
  }, []);

  const loadDetail = useCallback(async (id: string) => {
    setDetail(null);
    try {
      const item = await call<ReviewDetail>(`/review/${encodeURIComponent(id)}`);
      setDetail(item);
      setDrafts(Object.fromEntries(item.pages.map((p) => [p.number, p.text])));
    } catch (err) {
      setError(`Não foi possível abrir o documento: ${(err as Error).message}`);
    }
  }, []);

  useEffect(() => {
    void loadQueue();
  }, [loadQueue]);

  useEffect(() => {
    if (selected) void loadDetail(selected);
  }, [selected, loadDetail]);

  const open = (id: string) => {
    window.history.pushState(null, "", `/revisao?id=${encodeURIComponent(id)}`);
    setError("");
    setMessage("");
    setSelected(id);
  };

  const act = async (label: string, path: string, init: RequestInit, leavesQueue: boolean) => {
    if (!detail) return;
    setBusy(true);
    setError("");
    try {
      await call(`/review/${encodeURIComponent(detail.document_id)}${path}`, init);
      await loadQueue();
      setMessage(`${label}: ${detail.filename}.`);
      if (leavesQueue) {
        setDetail(null);
        setSelected(null);
        window.history.pushState(null, "", "/revisao");
      } else {
        await loadDetail(detail.document_id);
      }
    } catch (err) {
      setError(`${label} falhou: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="review">
      <h1>Fila de revisão</h1>
      <p className="status" role="status" aria-live="polite">
        {queue === null && !error ? "Carregando…" : message}
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {queue && queue.items.length === 0 && <p>Nenhum documento aguarda revisão.</p>}
      {queue && queue.items.length > 0 && (
        <table className="queue">
          <caption className="visually-hidden">Documentos aguardando revisão</caption>
          <thead>
            <tr>
              <th scope="col">Arquivo</th>
              <th scope="col">Motivo</th>
              <th scope="col">Confiança</th>
              <th scope="col">Páginas fracas</th>
              <th scope="col">Desde</th>
            </tr>
          </thead>
          <tbody>
            {queue.items.map((item) => (
              <tr key={item.document_id} aria-current={item.document_id === selected ? "true" : undefined}>
                <td>
                  <a
                    href={`/revisao?id=${encodeURIComponent(item.document_id)}`}
                    onClick={(e) => {
                      e.preventDefault();
                      open(item.document_id);
                    }}
                  >
                    {item.filename}
                  </a>
                </td>
                <td title={item.reason ?? ""}>{reasonLabel(item.reason_code)}</td>
                <td>{percent(item.ocr_confidence)}</td>
                <td>{item.weak_pages.join(", ") || "—"}</td>
                <td>{formatDateTime(item.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      {selected && !detail && !error && <p>Carregando documento…</p>}
      {detail && (
        <section className="review-detail" aria-labelledby="revisao-titulo">
          <h2 id="revisao-titulo">{detail.filename}</h2>
          <p>
            <strong>{reasonLabel(detail.reason_code)}</strong>
            {detail.reason ? `: ${detail.reason}` : ""}
          </p>
          <div className="actions">
            <button type="button" disabled={busy} onClick={() => void act("Aprovado", "/approve", { method: "POST" }, true)}>
              Aprovar
            </button>
            <label htmlFor="reocr-dpi">Resolução do novo OCR</label>
            <select id="reocr-dpi" value={dpi} onChange={(e) => setDpi(e.target.value)}>
              <option value="300">300 dpi</option>
              <option value="400">400 dpi</option>
              <option value="600">600 dpi</option>
            </select>
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                void act("Novo OCR pedido", "/reocr", { method: "POST", body: JSON.stringify({ dpi: Number(dpi) }) }, true)
              }
            >
              Refazer OCR
            </button>
            <label htmlFor="motivo-rejeicao">Motivo da rejeição</label>
            <input id="motivo-rejeicao" value={rejectReason} onChange={(e) => setRejectReason(e.target.value)} />
            <button
              type="button"
              disabled={busy || rejectReason.trim().length < 3}
              onClick={() =>
                void act("Rejeitado", "/reject", { method: "POST", body: JSON.stringify({ reason: rejectReason.trim() }) }, true)
              }
            >
              Rejeitar
            </button>
          </div>
          {detail.pages.length === 0 && <p>Não há texto extraído deste documento: refaça o OCR ou rejeite-o.</p>}
          {detail.pages.map((page) => (
            <div className="review-page" key={page.number}>
              <h3>
                Página {page.number} <small>({page.method}, confiança {percent(page.confidence)})</small>
              </h3>
              <div className="review-columns">
                {page.image_url ? (
                  // eslint-disable-next-line @next/next/no-img-element -- an authenticated API image, not a static asset
                  <img src={`/api${page.image_url}`} alt={`Imagem da página ${page.number}`} loading="lazy" />
                ) : (
                  <p>Sem imagem para este formato.</p>
                )}
                <div className="field">
                  <label htmlFor={`texto-${page.number}`}>Texto extraído da página {page.number}</label>
                  <textarea
                    id={`texto-${page.number}`}
                    rows={14}
                    value={drafts[page.number] ?? ""}
                    onChange={(e) => setDrafts({ ...drafts, [page.number]: e.target.value })}
                  />
                  <button
                    type="button"
                    disabled={busy || drafts[page.number] === page.text}
                    onClick={() =>
                      void act(
                        `Página ${page.number} corrigida`,
                        `/pages/${page.number}`,
                        { method: "PUT", body: JSON.stringify({ text: drafts[page.number] ?? "" }) },
                        false,
                      )
                    }
                  >
                    Salvar correção
                  </button>
                </div>
              </div>
            </div>
          ))}
          {detail.actions.length > 0 && (
            <>
              <h3>Histórico</h3>
              <ul>
                {detail.actions.map((a, i) => (
                  <li key={i}>
                    {formatDateTime(a.at)} — {a.actor}: {a.action}
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
      )}
    </div>
  );
}
