import { ThesaurusPage } from "../../components/ThesaurusPage";
import { may } from "../../lib/identity";
import { requireIdentity } from "../../lib/server";

// The firm's thesaurus (issue 34, item 4): administrators only; the API refuses anyone else (403) as well.
export default async function Thesaurus() {
  const identity = await requireIdentity("/tesauro");
  if (!may(identity, "admin")) {
    return (
      <div className="research">
        <h1>Tesauro</h1>
        <p role="alert">Só administradores alteram o tesauro do escritório.</p>
      </div>
    );
  }
  return <ThesaurusPage />;
}
