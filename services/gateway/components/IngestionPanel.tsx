"use client";

// The ingestion page's live part: "Enviar documentos" (POST /documents through /api), the list of documents
// (GET /documents): search by name, filter by state, each with its state, reason and history in Portuguese; and,
// for administrators, "Mensagens recusadas" (GET /refused-messages): what the pipeline refused for breaking its
// contract, including messages that name no document, which only the dead-letter topic had before.
import { useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import { callApi } from "../lib/apiClient";
import {
  accessGroupsField,
  IN_PROGRESS,
  listQuery,
  PAGE_SIZE,
  STATE_FILTERS,
  type DocumentList,
  type DocumentStatusDetail,
  type ListedDocument,
} from "../lib/documents";
import { formatDateTime } from "../lib/format";
import {
  historyText,
  plural,
  reasonHint,
  reasonLabel,
  reasonText,
  stageLabel,
  stateLabel,
  uploadErrorLabel,
  uploadOutcomeLabel,
} from "../lib/labels";
import { errorMessage } from "../lib/problem";

interface Props {
  /** The caller's groups: offered as the new documents' access list. */
  groups: string[];
  mayUpload: boolean;
  mayReview: boolean;
  /** An administrator: sees the refused messages (GET /refused-messages is theirs alone). */
  mayAdminister?: boolean;
  /** The search and state of the address (?q=, ?estado=): a list is shared by its link. */
  initialQuery?: string;
  initialState?: string;
}

interface Outcome {
  filename: string;
  ok: boolean;
  text: string;
  /** The API's own words, kept as a technical detail. */
  detail?: string;
}

const POLL_MS = 4000;
const REFUSED_PAGE = 20;

/** One message a consumer refused (GET /refused-messages, services/search/routers/refused.py). */
export interface RefusedMessage {
  at: string;
  consumer: string;
  topic: string;
  reason: string;
  message_start: string;
  document_id: string | null;
}

export interface RefusedMessagePage {
  total: number;
  kept_at_most: number;
  messages: RefusedMessage[];
}

/** The refused messages of one page, as a person reads them: when, who refused it, on which topic, about which
 * document (or that it names none), why, and how it starts; the reason and the start stay as they came. */
export function RefusedMessageList({ page, offset }: { page: RefusedMessagePage; offset: number }) {
  if (page.total === 0) return <p>Nenhuma mensagem recusada.</p>;
  const shown = page.messages.length;
  return (
    <>
      <p>
        {plural(page.total, "mensagem recusada guardada", "mensagens recusadas guardadas")}
        {page.total > shown && shown > 0 ? `; mostrando ${offset + 1}–${offset + shown}` : ""}. Guardam-se no máximo
        as {page.kept_at_most.toLocaleString("pt-BR")} mais recentes.
      </p>
      <ul className="refused-list" aria-label="Mensagens recusadas">
        {page.messages.map((m, i) => (
          <li key={`${m.at}-${i}`}>
            <p>
              <strong>{formatDateTime(m.at)}</strong>: {m.consumer} recusou uma mensagem de <code>{m.topic}</code>{" "}
              {m.document_id ? (
                <>
                  sobre o documento <code>{m.document_id}</code>
                </>
              ) : (
                "que não diz de qual documento é"
              )}
              .
            </p>
            <p className="technical">
              Motivo: <code lang="en">{m.reason}</code>
            </p>
            <p className="technical">
              Começo da mensagem: <code>{m.message_start}</code>
            </p>
          </li>
        ))}
      </ul>
    </>
  );
}

function RefusedMessages() {
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<RefusedMessagePage | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    callApi<RefusedMessagePage>(`/refused-messages?limit=${REFUSED_PAGE}&offset=${offset}`)
      .then((found) => {
        setPage(found);
        setError("");
      })
      .catch((err: Error) => setError(`Não foi possível carregar as mensagens recusadas: ${err.message}`));
  }, [offset]);
  return (
    <section className="refused" aria-labelledby="recusadas-titulo">
      <h2 id="recusadas-titulo">Mensagens recusadas</h2>
      <p className="hint">
        Mensagens que chegaram às etapas sem seguir o contrato (de um sistema de gestão de documentos, por exemplo):
        nada foi feito com elas. Quem as publicou deve corrigi-las e publicar de novo.
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!page && !error && <p>Carregando…</p>}
      {page && <RefusedMessageList page={page} offset={offset} />}
      {page && page.total > REFUSED_PAGE && (
        <nav className="pager" aria-label="Páginas das mensagens recusadas">
          <button
            type="button"
            className="secondary"
            disabled={offset === 0}
            onClick={() => setOffset(Math.max(0, offset - REFUSED_PAGE))}
          >
            Mais recentes
          </button>
          <button
            type="button"
            className="secondary"
            disabled={offset + REFUSED_PAGE >= page.total}
            onClick={() => setOffset(offset + REFUSED_PAGE)}
          >
            Mais antigas
          </button>
        </nav>
      )}
    </section>
  );
}

function Upload({ groups, onUploaded }: { groups: string[]; onUploaded: () => void }) {
  const [everyone, setEveryone] = useState(true);
  const [chosen, setChosen] = useState<string[]>([]);
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const [outcomes, setOutcomes] = useState<Outcome[]>([]);
  const files = useRef<HTMLInputElement>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const picked = Array.from(files.current?.files ?? []);
    if (picked.length === 0) {
      setOutcomes([{ filename: "", ok: false, text: "Escolha ao menos um arquivo." }]);
      return;
    }
    const access = accessGroupsField([...(everyone ? ["*"] : []), ...chosen], typed);
    setBusy(true);
    setOutcomes([]);
    const done: Outcome[] = [];
    for (const file of picked) {
      const body = new FormData();
      body.append("file", file, file.name);
      body.append("access_groups", access);
      try {
        const response = await fetch("/api/documents", { method: "POST", body, headers: { accept: "application/json" } });
        if (response.status === 401) {
          window.location.assign(`/login?next=${encodeURIComponent("/ingestao")}`);
          return;
        }
        if (response.ok) {
          const accepted = (await response.json()) as { document_id: string; outcome: string };
          done.push({ filename: file.name, ok: true, text: uploadOutcomeLabel(accepted.outcome) });
        } else {
          const detail = await errorMessage(response);
          done.push({ filename: file.name, ok: false, text: `Não enviado: ${uploadErrorLabel(response.status)}`, detail });
        }
      } catch (err) {
        done.push({ filename: file.name, ok: false, text: "Não enviado: sem conexão com o servidor", detail: String(err) });
      }
      setOutcomes([...done]);
    }
    setBusy(false);
    if (files.current) files.current.value = "";
    onUploaded();
  };

  const toggle = (group: string) =>
    setChosen((now) => (now.includes(group) ? now.filter((g) => g !== group) : [...now, group]));

  return (
    <section className="upload" aria-labelledby="enviar-titulo">
      <h2 id="enviar-titulo">Enviar documentos</h2>
      <form onSubmit={(e) => void submit(e)}>
        <div className="field">
          <label htmlFor="arquivos">Arquivos (PDF, DOCX, DOC, ODT, RTF, HTML, TXT ou e-mail)</label>
          <input id="arquivos" name="arquivos" type="file" multiple ref={files} />
        </div>
        <fieldset className="field">
          <legend>Quem pode ver estes documentos</legend>
          <label>
            <input type="checkbox" checked={everyone} onChange={(e) => setEveryone(e.target.checked)} /> Todo o
            escritório
          </label>
          {groups.map((group) => (
            <label key={group}>
              <input type="checkbox" checked={chosen.includes(group)} onChange={() => toggle(group)} /> Grupo {group}
            </label>
          ))}
          <label htmlFor="outros-grupos">Outros grupos (separados por vírgula)</label>
          <input id="outros-grupos" value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />
          <p className="hint">
            Sem nenhum grupo marcado, o documento fica aberto a todo o escritório. Quem enviou sempre acompanha o
            andamento.
          </p>
        </fieldset>
        <div>
          <button type="submit" disabled={busy}>
            {busy ? "Enviando…" : "Enviar documentos"}
          </button>
        </div>
      </form>
      <div role="status" aria-live="polite">
        {outcomes.length > 0 && (
          <ul className="upload-results" aria-label="Resultado do envio">
            {outcomes.map((o, i) => (
              <li key={`${o.filename}-${i}`} className={o.ok ? "ok" : "failed"}>
                {o.filename && <strong>{o.filename}: </strong>}
                {o.text}
                {o.detail && (
                  <>
                    {" "}
                    <span className="technical">
                      (<code lang="en">{o.detail}</code>)
                    </span>
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

function Reason({ document }: { document: ListedDocument }) {
  if (document.stage !== "review" && document.stage !== "failed") return null;
  const translated = reasonText(document.error);
  const hint = reasonHint(document.reason_code);
  return (
    <div className="reason">
      <strong>{reasonLabel(document.reason_code)}</strong>
      {translated ? `: ${translated}` : hint ? `. ${hint}` : ""}
      {translated && hint && <div className="hint">{hint}</div>}
      {document.error && !translated && (
        <details className="technical">
          <summary>Detalhe técnico</summary>
          <code lang="en">{document.error}</code>
        </details>
      )}
    </div>
  );
}

function History({ documentId }: { documentId: string }) {
  const [detail, setDetail] = useState<DocumentStatusDetail | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    callApi<DocumentStatusDetail>(`/documents/${encodeURIComponent(documentId)}/status`)
      .then(setDetail)
      .catch((err: Error) => setError(`Não foi possível carregar o histórico: ${err.message}`));
  }, [documentId]);
  if (error) return <p className="error">{error}</p>;
  if (!detail) return <p>Carregando histórico…</p>;
  return (
    <ol className="history">
      {detail.history.map((entry, i) => {
        const translated = historyText(entry.detail);
        return (
          <li key={i}>
            {formatDateTime(entry.at)}: {stageLabel(entry.stage)}
            {entry.version > 1 ? ` (versão ${entry.version})` : ""}
            {translated && ` — ${translated}`}
            {translated === null && entry.detail && (
              <details className="technical">
                <summary>Detalhe técnico</summary>
                <code lang="en">{entry.detail}</code>
              </details>
            )}
          </li>
        );
      })}
    </ol>
  );
}

function DocumentItem({ document, mayReview }: { document: ListedDocument; mayReview: boolean }) {
  const [open, setOpen] = useState(false);
  const facts = [
    document.title && document.title !== document.filename ? document.title : null,
    document.page_count ? plural(document.page_count, "página", "páginas") : null,
    document.chunk_count ? plural(document.chunk_count, "trecho", "trechos") : null,
    `atualizado em ${formatDateTime(document.updated_at)}`,
  ].filter(Boolean);
  return (
    <li className="document-item" data-document-id={document.document_id}>
      <h3>
        {document.stage === "indexed" ? (
          <a href={`/api/documents/${encodeURIComponent(document.document_id)}`} target="_blank" rel="noopener">
            {document.filename}
          </a>
        ) : (
          document.filename
        )}
      </h3>
      <p className="meta">
        <span className={`state state-${document.stage}`}>{stateLabel(document.stage, document.halted_in)}</span>
        {facts.map((fact) => (
          <span key={fact}>{fact}</span>
        ))}
      </p>
      <Reason document={document} />
      {document.stage === "review" && mayReview && (
        <p className="reason">
          <a href={`/revisao?id=${encodeURIComponent(document.document_id)}`}>Revisar {document.filename}</a>
        </p>
      )}
      <details onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
        <summary>Histórico</summary>
        {open && <History documentId={document.document_id} />}
      </details>
    </li>
  );
}

export function IngestionPanel({
  groups,
  mayUpload,
  mayReview,
  mayAdminister = false,
  initialQuery = "",
  initialState = "",
}: Props) {
  const [q, setQ] = useState(initialQuery);
  const [state, setState] = useState(STATE_FILTERS.some((f) => f.value === initialState) ? initialState : "");
  const [offset, setOffset] = useState(0);
  const [list, setList] = useState<DocumentList | null>(null);
  const [error, setError] = useState("");
  const [tick, setTick] = useState(0);
  const asked = useRef(0);

  const load = useCallback(async (query: string, filter: string, at: number) => {
    const ticket = ++asked.current; // only the latest question's answer is shown
    try {
      const found = await callApi<DocumentList>(listQuery(query, filter, at));
      if (ticket !== asked.current) return;
      setList(found);
      setError("");
    } catch (err) {
      if (ticket === asked.current) setError(`Não foi possível carregar os documentos: ${(err as Error).message}`);
    }
  }, []);

  useEffect(() => {
    const timer = window.setTimeout(() => void load(q, state, offset), q ? 250 : 0);
    const url = new URL(window.location.href);
    for (const [name, value] of [["q", q.trim()], ["estado", state]] as const) {
      if (value) url.searchParams.set(name, value);
      else url.searchParams.delete(name);
    }
    window.history.replaceState(null, "", url.pathname + url.search);
    return () => window.clearTimeout(timer);
  }, [q, state, offset, tick, load]);

  // While a listed document is still on its way, ask again a few seconds later.
  useEffect(() => {
    if (!list?.documents.some((d) => IN_PROGRESS.has(d.stage))) return;
    const timer = window.setTimeout(() => setTick((t) => t + 1), POLL_MS);
    return () => window.clearTimeout(timer);
  }, [list]);

  const total = list?.total ?? 0;
  const shown = list?.documents.length ?? 0;
  return (
    <>
      {mayUpload && (
        <Upload
          groups={groups}
          onUploaded={() => {
            setOffset(0);
            setTick((t) => t + 1);
          }}
        />
      )}
      <section className="documents" aria-labelledby="documentos-titulo">
        <h2 id="documentos-titulo">Documentos</h2>
        <form className="documents-search" role="search" onSubmit={(e) => e.preventDefault()}>
          <div className="field">
            <label htmlFor="busca-documento">Buscar pelo nome ou título</label>
            <input
              id="busca-documento"
              type="search"
              value={q}
              maxLength={200}
              onChange={(e) => {
                setQ(e.target.value);
                setOffset(0);
              }}
            />
          </div>
          <div className="field">
            <label htmlFor="filtro-estado">Situação</label>
            <select
              id="filtro-estado"
              value={state}
              onChange={(e) => {
                setState(e.target.value);
                setOffset(0);
              }}
            >
              {STATE_FILTERS.map((f) => (
                <option key={f.value} value={f.value}>
                  {f.label}
                </option>
              ))}
            </select>
          </div>
        </form>
        <p className="status" role="status" aria-live="polite">
          {list === null && !error
            ? "Carregando…"
            : list
              ? total === 0
                ? "Nenhum documento encontrado."
                : `${plural(total, "documento", "documentos")}${total > shown ? `; mostrando ${offset + 1}–${offset + shown}` : ""}`
              : ""}
        </p>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {list && list.documents.length > 0 && (
          <ul className="document-list" aria-label="Documentos">
            {list.documents.map((d) => (
              <DocumentItem key={d.document_id} document={d} mayReview={mayReview} />
            ))}
          </ul>
        )}
        {list && total > PAGE_SIZE && (
          <nav className="pager" aria-label="Páginas da lista">
            <button
              type="button"
              className="secondary"
              disabled={offset === 0}
              onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}
            >
              Anteriores
            </button>
            <button
              type="button"
              className="secondary"
              disabled={offset + PAGE_SIZE >= total}
              onClick={() => setOffset(offset + PAGE_SIZE)}
            >
              Próximos
            </button>
          </nav>
        )}
      </section>
      {mayAdminister && <RefusedMessages />}
    </>
  );
}
