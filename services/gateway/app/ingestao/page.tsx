import { unstable_rethrow } from "next/navigation";
import { IngestionPanel } from "../../components/IngestionPanel";
import { Counts } from "../../components/StatusCounts";
import { formatDateTime } from "../../lib/format";
import { may } from "../../lib/identity";
import { reasonHint, reasonLabel, reasonText, reviewReasonRows, stageCountLabel, STAGE_ORDER, stateLabel } from "../../lib/labels";
import { apiGet, requireIdentity } from "../../lib/server";
import type { IngestionStatus } from "../../lib/types";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function Ingestion({ searchParams }: Props) {
  const params = await searchParams;
  const text = (name: string) => (typeof params[name] === "string" ? (params[name] as string).slice(0, 200) : "");
  const identity = await requireIdentity("/ingestao");
  let status: IngestionStatus | null = null;
  let error = "";
  try {
    status = await apiGet<IngestionStatus>("/status", "/ingestao");
  } catch (err) {
    unstable_rethrow(err); // a redirect to sign-in is not an error to show
    error = (err as Error).message;
  }
  const panel = (
    <IngestionPanel
      groups={identity.groups}
      mayUpload={may(identity, "ingest")}
      mayReview={may(identity, "review")}
      mayAdminister={may(identity, "admin")}
      initialQuery={text("q")}
      initialState={text("estado")}
    />
  );
  if (!status) {
    return (
      <div className="ingestion">
        <h1>Ingestão</h1>
        <p className="error" role="alert">
          Não foi possível consultar o andamento da ingestão ({error}). <a href="/ingestao">Tentar de novo</a>
        </p>
        {panel}
      </div>
    );
  }
  const stages: [string, number][] = [
    ...STAGE_ORDER.filter((stage) => stage in status.stages).map((s): [string, number] => [s, status.stages[s] ?? 0]),
    ...Object.entries(status.stages).filter(([stage]) => !STAGE_ORDER.includes(stage)),
  ];
  return (
    <div className="ingestion">
      <h1>Ingestão</h1>
      {panel}
      <h2>Andamento</h2>
      {status.yielding_to_search && (
        <p className="yielding" role="status">
          {yieldingLine(status.yielding_to_search.documents, status.yielding_to_search.search_p95_ms)}
        </p>
      )}
      <p>
        <a href="/ingestao">Atualizar</a>
      </p>
      <div className="count-grid">
        <Counts title="Documentos por situação" counts={stages} label={stageCountLabel} />
        <Counts
          title="Aguardando revisão, por motivo"
          counts={reviewReasonRows(status)}
          label={reasonLabel}
          note={
            status.review_queue && (
            <>
              Os mesmos que o filtro <a href="/ingestao?estado=revisao">Aguardando revisão</a> lista, com os já
              indexados sem alguma página e os que não puderam ser lidos.
            </>
            )
          }
        />
        <Counts title="Não processados, por motivo" counts={Object.entries(status.failure_reasons)} label={reasonLabel} />
      </div>
      <section>
        <h2>Últimos documentos parados</h2>
        {status.latest_stopped.length === 0 ? (
          <p>Nenhum documento parado.</p>
        ) : (
          <div className="table-scroll">
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
                      {doc.stage === "review" && may(identity, "review") ? (
                        <a href={`/revisao?id=${doc.document_id}`}>{doc.filename}</a>
                      ) : (
                        doc.filename
                      )}
                    </td>
                    <td>{stateLabel(doc.stage, doc.halted_in)}</td>
                    <td>
                      <strong>{reasonLabel(doc.reason_code)}</strong>
                      {reasonText(doc.reason) ? `: ${reasonText(doc.reason)}` : reasonHint(doc.reason_code) ? `. ${reasonHint(doc.reason_code)}` : ""}
                    </td>
                    <td>{formatDateTime(doc.at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}

/** "Cedendo à busca: 3 documentos aguardam (busca p95 1,8 s)": the pipeline holds its work back while lawyers'
 * searches are slow, so a document taking longer here is expected, not a fault. */
function yieldingLine(documents: number, p95Ms: number): string {
  const waiting = documents === 1 ? "1 documento aguarda" : `${documents} documentos aguardam`;
  const seconds = (p95Ms / 1000).toLocaleString("pt-BR", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  return `Cedendo à busca: ${waiting} (busca p95 ${seconds} s)`;
}
