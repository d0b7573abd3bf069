// Where to send the browser: kept free of Next.js imports so it is tested as plain functions.

/** Only a path of this site is a place to go back to after signing in (no //host, no scheme). */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  return next;
}

/** The password form a person must fill before anything else (a password someone else chose), then `next`. */
export function requiredChangePath(next: string): string {
  return `/senha?${new URLSearchParams({ obrigatoria: "1", next: safeNext(next) }).toString()}`;
}

/** The sign-in page, coming back to `next` afterwards; `error` is one of the codes the page knows. */
export function loginPath(next: string, error?: "credenciais" | "tentativas" | "indisponivel"): string {
  const params = new URLSearchParams();
  if (error) params.set("erro", error);
  params.set("next", safeNext(next));
  return `/login?${params.toString()}`;
}
