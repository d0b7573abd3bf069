import { formatDateTime, stageLabel, STAGE_LABELS } from "../../lib/format";
import { unstable_rethrow } from "next/navigation";
import { apiGet, requireIdentity } from "../../lib/server";
import type { IngestionStatus } from "../../lib/types";

function Counts({ title, counts }: { title: string; counts: Record<string, number> }) {
  const entries = Object.entries(counts);
  return (
    <section className="counts">
      <h2>{title}</h2>
      {entries.length === 0 ? (
        <p>Nenhum.</p>
      ) : (
        <dl>
          {entries.map(([key, n]) => (
            <div key={key}>
              <dt>{stageLabel(key)}</dt>
              <dd>{n}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}

export default async function Ingestion() {
  await requireIdentity("/ingestao");
  let status: IngestionStatus | null = null;
  let error = "";
  try {
    status = await apiGet<IngestionStatus>("/status", "/ingestao");
  } catch (err) {
    unstable_rethrow(err); // a redirect to sign-in is not an error to show
    error = (err as Error).message;
  }
  if (!status) {
    return (
      <div className="ingestion">
        <h1>Ingestão</h1>
        <p className="error" role="alert">
          Não foi possível consultar o serviço de busca ({error}). <a href="/ingestao">Tentar de novo</a>
        </p>
      </div>
    );
  }
  const ordered = Object.fromEntries(
    Object.keys(STAGE_LABELS)
      .filter((stage) => stage in status.stages)
      .map((stage) => [stage, status.stages[stage] ?? 0]),
  );
  return (
    <div className="ingestion">
      <h1>Ingestão</h1>
      <p>
        <a href="/ingestao">Atualizar</a>
      </p>
      <div className="count-grid">
        <Counts title="Documentos por etapa" counts={ordered} />
        <Counts title="Em revisão, por motivo" counts={status.review_reasons} />
        <Counts title="Falhas, por motivo" counts={status.failure_reasons} />
      </div>
      <section>
        <h2>Últimos documentos parados</h2>
        {status.latest_stopped.length === 0 ? (
          <p>Nenhum documento parado.</p>
        ) : (
          <table className="stopped">
            <thead>
              <tr>
                <th scope="col">Arquivo</th>
                <th scope="col">Situação</th>
                <th scope="col">Motivo</th>
                <th scope="col">Quando</th>
              </tr>
            </thead>
            <tbody>
              {status.latest_stopped.map((doc) => (
                <tr key={doc.document_id}>
                  <td>
                    {doc.stage === "review" ? <a href={`/revisao?id=${doc.document_id}`}>{doc.filename}</a> : doc.filename}
                  </td>
                  <td>
                    {stageLabel(doc.stage)}
                    {doc.halted_in ? ` (em ${doc.halted_in})` : ""}
                  </td>
                  <td>
                    {doc.reason_code && <code>{doc.reason_code}</code>} {doc.reason}
                  </td>
                  <td>{formatDateTime(doc.at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
