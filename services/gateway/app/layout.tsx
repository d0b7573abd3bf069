import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./globals.css";
import "./operations.css";
import { menuFor } from "../lib/identity";
import { currentIdentity } from "../lib/server";

export const metadata: Metadata = {
  title: "Precedente — pesquisa",
  description: "Pesquisa semântica nos documentos do escritório",
};

export const dynamic = "force-dynamic";

export default async function RootLayout({ children }: { children: ReactNode }) {
  const identity = await currentIdentity().catch(() => null);
  return (
    <html lang="pt-BR">
      <body>
        <a className="skip-link" href="#conteudo">
          Ir para o conteúdo
        </a>
        {identity?.demo && (
          <p className="demo-banner" role="note">
            Modo demonstração, sem autenticação: você vê apenas os documentos abertos a todos
            {identity.groups.length > 0 ? ` e aos grupos ${identity.groups.join(", ")}` : ""}.
          </p>
        )}
        <header className="top">
          <a className="brand" href="/">
            Precedente
          </a>
          {identity && !identity.mustChangePassword && (
            <nav aria-label="Principal">
              <ul>
                {menuFor(identity).map((entry) => (
                  <li key={entry.href}>
                    <a href={entry.href}>{entry.label}</a>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          {identity && !identity.demo && (
            <form method="post" action="/auth/logout" className="user">
              <span className="user-name" title={identity.user}>
                {identity.user}
              </span>
              {identity.kind === "user" && <a href="/senha">Senha</a>}
              <button type="submit">Sair</button>
            </form>
          )}
        </header>
        <main id="conteudo" tabIndex={-1}>
          {children}
        </main>
      </body>
    </html>
  );
}
