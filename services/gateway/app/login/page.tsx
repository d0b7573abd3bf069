import { redirect } from "next/navigation";
import { readConfig } from "../../lib/config";
import { isDemo } from "../../lib/identity";
import { currentIdentity, safeNext } from "../../lib/server";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function Login({ searchParams }: Props) {
  const params = await searchParams;
  const next = safeNext(typeof params.next === "string" ? params.next : "/");
  if (isDemo(readConfig()) || (await currentIdentity())) redirect(next);
  const error = typeof params.erro === "string" ? params.erro : "";
  return (
    <section className="login">
      <h1>Entrar</h1>
      {error && (
        <p className="error" role="alert" id="login-erro">
          {error === "indisponivel" ? "O cadastro de usuários está indisponível. Avise o suporte." : "Usuário ou senha incorretos."}
        </p>
      )}
      <form method="post" action="/auth/login" aria-describedby={error ? "login-erro" : undefined}>
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
