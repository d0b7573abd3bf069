"use client";

// "Tesauro" (issue 34, item 4): administrators keep the firm's own sets of names of one concept (a client's name for
// a contract type, a regional variant, the Latin the partners use). The next search uses a change, on every replica;
// the API audits each one (services/search/routers/thesaurus.py). The general concepts shipped with Precedente are
// listed below them, read-only.
import { useCallback, useEffect, useId, useState } from "react";
import { apiDelete, callApi } from "../lib/apiClient";
import { formatDateTime } from "../lib/format";
import {
  BASE_PAGE_SIZE,
  type BasePage,
  type FirmConcept,
  namesFromText,
  namesProblem,
  setLabel,
  setsCount,
  THESAURUS_PAGE_SIZE,
  type ThesaurusPage as ThesaurusAnswer,
} from "../lib/thesaurus";
import "./research.css";
import "./thesaurus.css";

interface EditorProps {
  /** The names it starts with (editing a set), none for a new one. */
  initial?: string[];
  label: string;
  submit: string;
  busy: boolean;
  onSave: (names: string[]) => void;
  onCancel?: () => void;
}

/** The names of one concept, one per line; checked here first so the lawyer reads why in Portuguese. */
export function SetEditor({ initial = [], label, submit, busy, onSave, onCancel }: EditorProps) {
  const id = useId();
  const [text, setText] = useState(initial.join("\n"));
  const [problem, setProblem] = useState("");
  return (
    <form
      className="thesaurus-editor"
      onSubmit={(event) => {
        event.preventDefault();
        const names = namesFromText(text);
        const why = namesProblem(names);
        setProblem(why);
        if (!why) onSave(names);
      }}
    >
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        rows={Math.max(3, initial.length + 1)}
        value={text}
        placeholder={"Contrato Jatobá\nlocação built to suit"}
        aria-describedby={problem ? `${id}-problem` : undefined}
        onChange={(event) => setText(event.target.value)}
      />
      {problem && (
        <p className="error" id={`${id}-problem`} role="alert">
          {problem}
        </p>
      )}
      <p className="research-actions">
        <button type="submit" disabled={busy}>
          {submit}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancelar
          </button>
        )}
      </p>
    </form>
  );
}

interface ListProps {
  items: FirmConcept[];
  busy?: boolean;
  editing?: number | null;
  onEdit?: (item: FirmConcept) => void;
  onSave?: (item: FirmConcept, names: string[]) => void;
  onCancel?: () => void;
  onRemove?: (item: FirmConcept) => void;
}

/** The firm's sets, in the order they were added: the names, who changed it last and when, "Editar", "Remover". */
export function ThesaurusList({ items, busy = false, editing = null, onEdit, onSave, onCancel, onRemove }: ListProps) {
  return (
    <ol className="research-list">
      {items.map((item) => (
        <li key={item.id} className="research-item">
          {editing === item.id && onSave ? (
            <SetEditor
              initial={item.names}
              label={`Nomes do conjunto ${item.id}, um por linha`}
              submit="Salvar"
              busy={busy}
              onSave={(names) => onSave(item, names)}
              onCancel={onCancel}
            />
          ) : (
            <>
              <p className="thesaurus-names">
                {item.names.map((name, i) => (
                  <span key={name}>
                    {i > 0 && <span className="thesaurus-equals"> = </span>}
                    <span className="thesaurus-name">{name}</span>
                  </span>
                ))}
              </p>
              <p className="research-meta">
                Conjunto {item.id} · alterado por {item.updated_by} em{" "}
                <time dateTime={item.updated_at}>{formatDateTime(item.updated_at)}</time>
              </p>
              <p className="research-actions">
                {onEdit && (
                  <button type="button" disabled={busy} onClick={() => onEdit(item)} aria-label={`Editar “${setLabel(item.names)}”`}>
                    Editar
                  </button>
                )}
                {onRemove && (
                  <button type="button" disabled={busy} onClick={() => onRemove(item)} aria-label={`Remover “${setLabel(item.names)}”`}>
                    Remover
                  </button>
                )}
              </p>
            </>
          )}
        </li>
      ))}
    </ol>
  );
}

/** The shipped concepts (the base), in a fold: read on demand, one page of them. */
function BaseConcepts() {
  const [base, setBase] = useState<BasePage | null>(null);
  const [error, setError] = useState("");
  return (
    <details
      className="thesaurus-base"
      onToggle={(event) => {
        if ((event.target as HTMLDetailsElement).open && !base) {
          callApi<BasePage>(`/thesaurus/base?limit=${BASE_PAGE_SIZE}`)
            .then(setBase)
            .catch((err) => setError(err instanceof Error ? err.message : String(err)));
        }
      }}
    >
      <summary>Conceitos gerais que vêm com o Precedente{base ? ` (${base.total})` : ""}</summary>
      <p className="research-intro">
        Siglas, nomes populares de leis e termos latinos. Valem para todos os escritórios e só mudam com uma nova
        versão; os conjuntos do escritório somam-se a eles.
      </p>
      {error && (
        <p className="error" role="alert">
          Não foi possível carregar os conceitos gerais ({error}).
        </p>
      )}
      {base && (
        <ul className="thesaurus-base-list">
          {base.items.map((concept) => (
            <li key={concept.names.join("|")}>{setLabel(concept.names)}</li>
          ))}
        </ul>
      )}
    </details>
  );
}

export function ThesaurusPage() {
  const [page, setPage] = useState(1);
  const [answer, setAnswer] = useState<ThesaurusAnswer | null>(null);
  const [error, setError] = useState("");
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState<number | null>(null);
  const [formKey, setFormKey] = useState(0); // a new key empties the "new set" form after a save

  const load = useCallback(async (which: number) => {
    setError("");
    try {
      const offset = (which - 1) * THESAURUS_PAGE_SIZE;
      setAnswer(await callApi<ThesaurusAnswer>(`/thesaurus?limit=${THESAURUS_PAGE_SIZE}&offset=${offset}`));
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }, []);
  useEffect(() => void load(page), [load, page]);

  const act = async (work: () => Promise<string>) => {
    setBusy(true);
    setError("");
    try {
      setNote(await work());
      await load(page);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const add = (names: string[]) =>
    act(async () => {
      const added = await callApi<FirmConcept>("/thesaurus", { method: "POST", body: JSON.stringify({ names }) });
      setFormKey((key) => key + 1);
      return `Incluído: ${setLabel(added.names)}. Vale a partir da próxima pesquisa.`;
    });
  const save = (item: FirmConcept, names: string[]) =>
    act(async () => {
      const edited = await callApi<FirmConcept>(`/thesaurus/${item.id}`, { method: "PUT", body: JSON.stringify({ names }) });
      setEditing(null);
      return `Alterado: ${setLabel(edited.names)}.`;
    });
  const remove = (item: FirmConcept) => {
    if (!window.confirm(`Remover “${setLabel(item.names)}” do tesauro do escritório?`)) return;
    void act(async () => {
      await apiDelete(`/thesaurus/${item.id}`);
      return `Removido: ${setLabel(item.names)}.`;
    });
  };

  const last = answer ? Math.max(1, Math.ceil(answer.total / THESAURUS_PAGE_SIZE)) : 1;
  return (
    <div className="research thesaurus">
      <h1>Tesauro</h1>
      <p className="research-intro">
        Nomes que o escritório usa para o mesmo conceito: o nome que um cliente dá a um tipo de contrato, uma variante
        regional, o latim dos sócios. A pesquisa trata os nomes de um conjunto como equivalentes (procura também os
        outros, explica e destaca) a partir da próxima pesquisa. Cada alteração fica no registro de auditoria.
      </p>
      <p className="status" role="status" aria-live="polite">
        {note}
      </p>
      {error && (
        <p className="error" role="alert">
          Não foi possível concluir ({error}).
        </p>
      )}
      <section aria-labelledby="thesaurus-new">
        <h2 id="thesaurus-new">Novo conjunto</h2>
        <SetEditor key={formKey} label="Nomes do mesmo conceito, um por linha" submit="Incluir" busy={busy} onSave={(names) => void add(names)} />
      </section>
      <section aria-labelledby="thesaurus-firm">
        <h2 id="thesaurus-firm">Conjuntos do escritório</h2>
        {answer && answer.total === 0 && <p>Nenhum conjunto ainda: a pesquisa usa só os conceitos gerais.</p>}
        {answer && answer.items.length > 0 && (
          <>
            <p className="research-total">{setsCount(answer.total)}</p>
            <ThesaurusList
              items={answer.items}
              busy={busy}
              editing={editing}
              onEdit={(item) => setEditing(item.id)}
              onSave={(item, names) => void save(item, names)}
              onCancel={() => setEditing(null)}
              onRemove={remove}
            />
            {last > 1 && (
              <nav className="pager" aria-label="Páginas do tesauro">
                <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                  Anteriores
                </button>
                <span>
                  Página {page} de {last}
                </span>
                <button type="button" disabled={page >= last} onClick={() => setPage(page + 1)}>
                  Seguintes
                </button>
              </nav>
            )}
          </>
        )}
      </section>
      <BaseConcepts />
    </div>
  );
}
