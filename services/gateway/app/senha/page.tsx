import { MIN_PASSWORD } from "../../lib/authApi";
import { safeNext } from "../../lib/navigation";
import { requireIdentity } from "../../lib/server";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const MESSAGES: Record<string, string> = {
  atual: "A senha atual está incorreta.",
  diferentes: "A nova senha e a confirmação não são iguais.",
  curta: `A nova senha precisa de pelo menos ${MIN_PASSWORD} caracteres.`,
  igual: "A nova senha é igual à atual.",
  tentativas: "Muitas tentativas; aguarde um minuto.",
  indisponivel: "O serviço de autenticação está indisponível. Tente de novo em instantes ou avise o suporte.",
};

export default async function Password({ searchParams }: Props) {
  const identity = await requireIdentity("/senha");
  const params = await searchParams;
  if (identity.kind !== "user") {
    return (
      <section className="login">
        <h1>Senha</h1>
        <p>Esta conta não tem senha no Precedente: ela entra pelo provedor de identidade do escritório ou pelo modo demonstração.</p>
      </section>
    );
  }
  const code = typeof params.erro === "string" ? params.erro : "";
  const message = code ? (MESSAGES[code] ?? MESSAGES.atual) : "";
  // Asked for by the API (the first administrator's one-time password), or coming back from that form.
  const required = identity.mustChangePassword || params.obrigatoria !== undefined;
  const next = typeof params.next === "string" ? safeNext(params.next) : undefined;
  return (
    <section className="login">
      <h1>Alterar senha</h1>
      {identity.mustChangePassword && (
        <p className="notice" role="note" id="senha-obrigatoria">
          Antes de continuar, escolha uma senha nova: a atual foi criada automaticamente e vale só para este primeiro
          acesso.
        </p>
      )}
      {params.ok !== undefined && (
        <p className="ok" role="status">
          Senha alterada. As suas outras sessões foram encerradas.
          {next && (
            <>
              {" "}
              <a href={next}>Continuar</a>
            </>
          )}
        </p>
      )}
      {message && (
        <p className="error" role="alert" id="senha-erro">
          {message}
        </p>
      )}
      <form method="post" action="/auth/password" aria-describedby={message ? "senha-erro" : undefined}>
        <input type="text" name="username" autoComplete="username" value={identity.user} readOnly hidden />
        {required && <input type="hidden" name="next" value={next ?? "/"} />}
        <div className="field">
          <label htmlFor="senha-atual">Senha atual</label>
          <input id="senha-atual" name="current_password" type="password" autoComplete="current-password" required />
        </div>
        <div className="field">
          <label htmlFor="senha-nova">Nova senha ({MIN_PASSWORD} caracteres ou mais)</label>
          <input
            id="senha-nova"
            name="new_password"
            type="password"
            autoComplete="new-password"
            minLength={MIN_PASSWORD}
            required
          />
        </div>
        <div className="field">
          <label htmlFor="senha-confirma">Confirme a nova senha</label>
          <input
            id="senha-confirma"
            name="confirm_password"
            type="password"
            autoComplete="new-password"
            minLength={MIN_PASSWORD}
            required
          />
        </div>
        <button type="submit">Alterar senha</button>
      </form>
    </section>
  );
}
