export default function NotFound() {
  return (
    <section>
      <h1>Página não encontrada</h1>
      <p>
        O endereço não existe ou o documento não está disponível para você. <a href="/">Voltar à pesquisa</a>
      </p>
    </section>
  );
}
