"use client";

export default function Failure({ reset }: { error: Error; reset: () => void }) {
  return (
    <section role="alert">
      <h1>Algo deu errado</h1>
      <p>Não foi possível mostrar esta página agora.</p>
      <button type="button" onClick={() => reset()}>
        Tentar de novo
      </button>
    </section>
  );
}
