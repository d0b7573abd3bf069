"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { callApi as call } from "../lib/apiClient";
import { formatDateTime, percent } from "../lib/format";
import {
  actionLabel,
  indexableText,
  methodLabel,
  pageList,
  plural,
  reasonHint,
  reasonLabel,
  reasonText,
  stateLabel,
  weakPagesText,
} from "../lib/labels";
import type { ReviewDetail, ReviewQueue } from "../lib/types";

/** What approving would index, in one sentence; null when there is no text to index. */
export function approvalSummary(detail: Pick<ReviewDetail, "pages" | "ocr_confidence" | "weak_pages">): string | null {
  const found = indexableText(detail.pages);
  if (found.withText === 0) return null;
  const pages =
    found.withText === found.pages
      ? plural(found.pages, "página", "páginas")
      : `${found.withText} de ${plural(found.pages, "página", "páginas")} (as demais estão sem texto)`;
  const confidence = detail.ocr_confidence === null ? "" : ` Confiança da leitura da imagem: ${percent(detail.ocr_confidence)}.`;
  const weak = detail.weak_pages.length > 0 ? ` ${weakPagesText(detail.weak_pages)}.` : "";
  return `Será indexado o texto de ${pages}: ${plural(found.characters, "caractere", "caracteres")}, como está abaixo.${confidence}${weak}`;
}

/** The new reading's resolutions, in words: the API's dpi behind each ("400 dpi" was jargon to a lawyer). */
export const REREAD_RESOLUTIONS: { dpi: number; label: string }[] = [
  { dpi: 300, label: "Normal" },
  { dpi: 400, label: "Alta" },
  { dpi: 600, label: "Muito alta (mais lenta)" },
];

/** A queue row's weak pages: "Página 24", "Páginas 3 e 24", "—". */
export function weakPagesCell(pages: number[]): string {
  if (pages.length === 0) return "—";
  return `${pages.length === 1 ? "Página" : "Páginas"} ${pageList(pages)}`;
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
  const [confirming, setConfirming] = useState(false);
  const confirmRef = useRef<HTMLDivElement>(null);

  const loadQueue = useCallback(async () => {
    try {
      setQueue(await call<ReviewQueue>("/review"));
    } catch (err) {
      setError(`Não foi possível carregar a fila: ${(err as Error).message}`);
    }
  }, []);

  const loadDetail = useCallback(async (id: string) => {
    setDetail(null);
    setConfirming(false);
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

  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
  }, [confirming]);

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

  const summary = detail ? approvalSummary(detail) : null;
  const unsaved = detail ? detail.pages.filter((p) => (drafts[p.number] ?? p.text) !== p.text).map((p) => p.number) : [];

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
        <div className="table-scroll">
        <table className="queue">
          <caption className="visually-hidden">Documentos aguardando revisão</caption>
          <thead>
            <tr>
              <th scope="col">Arquivo</th>
              <th scope="col">Motivo</th>
              <th scope="col">Confiança da leitura</th>
              <th scope="col">Leitura fraca em</th>
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
                <td>{reasonLabel(item.reason_code)}</td>
                <td>{percent(item.ocr_confidence)}</td>
                <td>{weakPagesCell(item.weak_pages)}</td>
                <td>{formatDateTime(item.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      )}

      {selected && !detail && !error && <p>Carregando documento…</p>}
      {detail && (
        <section className="review-detail" aria-labelledby="revisao-titulo">
          <h2 id="revisao-titulo">{detail.filename}</h2>
          <p className="review-reason">
            <span className={`state state-${detail.stage}`}>{stateLabel(detail.stage, null)}</span>{" "}
            <strong>{reasonLabel(detail.reason_code)}</strong>
            {reasonText(detail.reason) ? `: ${reasonText(detail.reason)}` : ""}
          </p>
          {reasonHint(detail.reason_code) && <p className="review-hint">{reasonHint(detail.reason_code)}</p>}
          {detail.reason && !reasonText(detail.reason) && (
            <details className="technical">
              <summary>Detalhe técnico</summary>
              <code lang="en">{detail.reason}</code>
            </details>
          )}
          <div className="actions">
            <div className="group">
              <button
                type="button"
                className="secondary"
                disabled={busy || summary === null || confirming}
                aria-describedby={summary === null ? "sem-texto" : undefined}
                onClick={() => setConfirming(true)}
              >
                Aprovar
              </button>
            </div>
            <div className="group">
              <label htmlFor="reocr-dpi">Resolução da nova leitura</label>
              <select id="reocr-dpi" value={dpi} onChange={(e) => setDpi(e.target.value)}>
                {REREAD_RESOLUTIONS.map((r) => (
                  <option key={r.dpi} value={String(r.dpi)}>
                    {r.label}
                  </option>
                ))}
              </select>
              <button
                type="button"
                className="secondary"
                disabled={busy}
                onClick={() =>
                  void act("Nova leitura pedida", "/reocr", { method: "POST", body: JSON.stringify({ dpi: Number(dpi) }) }, true)
                }
              >
                Ler as páginas de novo, com mais resolução
              </button>
            </div>
            {detail.stage !== "indexed" && (
            <div className="group">
              <label htmlFor="motivo-rejeicao">Motivo da rejeição</label>
              <input id="motivo-rejeicao" value={rejectReason} onChange={(e) => setRejectReason(e.target.value)} />
              <button
                type="button"
                className="danger"
                disabled={busy || rejectReason.trim().length < 3}
                onClick={() =>
                  void act("Rejeitado", "/reject", { method: "POST", body: JSON.stringify({ reason: rejectReason.trim() }) }, true)
                }
              >
                Rejeitar
              </button>
            </div>
            )}
          </div>
          {summary === null && (
            <p id="sem-texto" className="notice">
              Não há texto extraído para aprovar (um PDF protegido ou uma imagem sem leitura): leia as páginas de novo ou
              rejeite o documento.
            </p>
          )}
          {confirming && summary !== null && (
            <div
              className="approve-confirm"
              role="group"
              aria-labelledby="confirmar-titulo"
              tabIndex={-1}
              ref={confirmRef}
            >
              <p id="confirmar-titulo">
                <strong>Aprovar {detail.filename}?</strong>
              </p>
              <p>{summary}</p>
              {unsaved.length > 0 && (
                <p className="error">
                  A correção da{unsaved.length > 1 ? "s páginas" : " página"} {unsaved.join(", ")} não foi salva e não
                  seria indexada: salve-a antes de aprovar.
                </p>
              )}
              <div className="actions">
                <button
                  type="button"
                  disabled={busy || unsaved.length > 0}
                  onClick={() => void act("Aprovado", "/approve", { method: "POST" }, true)}
                >
                  Confirmar aprovação
                </button>
                <button type="button" className="secondary" onClick={() => setConfirming(false)}>
                  Cancelar
                </button>
              </div>
            </div>
          )}
          {detail.pages.length === 0 && <p>Não há texto extraído deste documento: leia as páginas de novo ou rejeite-o.</p>}
          {detail.pages.map((page) => (
            <div className="review-page" key={page.number}>
              <h3>
                Página {page.number}{" "}
                <small>
                  ({methodLabel(page.method)}, confiança da leitura {percent(page.confidence)},{" "}
                  {plural(page.text.trim().length, "caractere", "caracteres")})
                </small>
                {page.unread && <span className="tag unread-tag"> fora do índice</span>}
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
                    {formatDateTime(a.at)}: {a.actor} {actionLabel(a.action)}
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
