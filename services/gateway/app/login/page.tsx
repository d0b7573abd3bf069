import { redirect } from "next/navigation";
import type { Identity } from "../../lib/identity";
import { safeNext } from "../../lib/navigation";
import { currentIdentity } from "../../lib/server";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const MESSAGES: Record<string, string> = {
  credenciais: "Usuário ou senha incorretos.",
  tentativas: "Muitas tentativas; aguarde um minuto.",
  indisponivel: "O serviço de autenticação está indisponível. Tente de novo em instantes ou avise o suporte.",
};

export default async function Login({ searchParams }: Props) {
  const params = await searchParams;
  const next = safeNext(typeof params.next === "string" ? params.next : "/");
  // Signed in already, or demo mode (nobody signs in): straight on. An API that is down still gets the form.
  const identity: Identity | null = await currentIdentity().catch(() => null);
  if (identity) redirect(next);
  const code = typeof params.erro === "string" ? params.erro : "";
  const message = code ? (MESSAGES[code] ?? MESSAGES.credenciais) : "";
  return (
    <section className="login">
      <h1>Entrar</h1>
      {message && (
        <p className="error" role="alert" id="login-erro">
          {message}
        </p>
      )}
      <form method="post" action="/auth/login" aria-describedby={message ? "login-erro" : undefined}>
        <input type="hidden" name="next" value={next} />
        <div className="field">
          <label htmlFor="usuario">Usuário</label>
          <input id="usuario" name="username" autoComplete="username" required autoFocus />
        </div>
        <div className="field">
          <label htmlFor="senha">Senha</label>
          <input id="senha" name="password" type="password" autoComplete="current-password" required />
        </div>
        <button type="submit">Entrar</button>
      </form>
    </section>
  );
}
