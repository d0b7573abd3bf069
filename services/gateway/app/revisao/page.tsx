import { ReviewQueuePage } from "../../components/ReviewQueuePage";
import { may } from "../../lib/identity";
import { requireIdentity } from "../../lib/server";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function Review({ searchParams }: Props) {
  const params = await searchParams;
  const id = typeof params.id === "string" && /^[0-9a-f-]{36}$/i.test(params.id) ? params.id : null;
  const identity = await requireIdentity(id ? `/revisao?id=${id}` : "/revisao");
  if (!may(identity, "review")) {
    // The API refuses the queue to them anyway (403): say so in words, and where they can follow their documents.
    return (
      <div className="review">
        <h1>Fila de revisão</h1>
        <p className="notice" role="note">
          Você não tem permissão de revisão. Para acompanhar os documentos que enviou, use a página{" "}
          <a href="/ingestao">Ingestão</a>; peça a permissão de revisor ao administrador do escritório se precisar dela.
        </p>
      </div>
    );
  }
  return <ReviewQueuePage selectedId={id} />;
}
