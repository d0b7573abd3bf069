// The ingestion and review pages in a real browser (Debian's chromium driven by playwright-core), desktop and
// 390x844, against a running stack. tests/e2e/test_gateway_operations.py starts it, ingests the documents and
// runs this with:
//   GATEWAY_URL   gateway of a stack with sign-in: ana (socios, a reviewer; ANA_PASSWORD) and bruno (contencioso,
//                 no review rights; BRUNO_PASSWORD)
//   PUBLIC_ID, PUBLIC_FILE  an indexed decision open to everyone
//   REVIEW_ID, REVIEW_FILE  an illegible scan in the review queue (some OCR text)
//   LOCKED_ID, LOCKED_FILE  a PDF locked by a password, in the review queue without any text
//   CARLA_PASSWORD  carla, an administrator
//   REFUSED_MARKER  a word in a message refused on documents.submitted that names no document (not JSON)
//   SEARCH_BUSY   set: search's load is recorded over the bar, a document waits; runs only "Cedendo à busca"
//   CHROMIUM      the browser (default /usr/bin/chromium); SCREENSHOTS: a folder for ingestion.png and review.png
// axe-core checks both pages: no serious or critical
// violation. Prints one line per scenario and exits non-zero if any failed.
import assert from "node:assert/strict";
import path from "node:path";
import { axeViolations, DESKTOP, launch, need, PHONE, runner, sessionOf as signedIn } from "./harness.mjs";

const env = process.env;
const GW = need("GATEWAY_URL");
const SHOTS = env.SCREENSHOTS ?? "";
const UPLOADED = "nota_enviada_pela_pagina.txt";
// Codes and English the pages must never show a person.
const RAW = /low_ocr_confidence|password_protected|no_text|\bFalhou\b|\(em (extractor|review)\)|is below the bar|\breview\b/;

const browser = await launch();
const { scenario, finish } = runner(browser);
const sessionOf = (user, password) => signedIn(browser, GW, user, password);

async function openPage(context, route) {
  const page = await context.newPage();
  await page.goto(`${GW}${route}`);
  return page;
}

const menu = (page) => page.getByRole("navigation", { name: "Principal" }).getByRole("link").allTextContents();

/** The page's own text, without the technical details folded away (the API's English, kept for operators). */
const visibleText = (page) =>
  page.evaluate(() => {
    const clone = document.querySelector("main").cloneNode(true);
    for (const el of clone.querySelectorAll("details.technical, .technical")) el.remove();
    return clone.innerText;
  });

/** The document list's items, by file name, once loaded. */
async function listed(page) {
  await page.locator(".documents .status", { hasText: /\d+ documentos?|Nenhum documento/ }).waitFor();
  return page.locator(".document-item h3").allTextContents();
}

async function checkAxe(page, what) {
  assert.deepEqual(await axeViolations(page), [], `${what}: axe-core serious or critical violations`);
}

/** No horizontal scroll, and "Sair" on screen and usable. */
async function fitsThePhone(page, route) {
  const width = await page.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth));
  assert.ok(width <= PHONE.width, `${route}: the page is ${width} px wide at ${PHONE.width} px`);
  const sair = page.getByRole("button", { name: "Sair" });
  const box = await sair.boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width && box.y >= 0, `${route}: "Sair" at ${JSON.stringify(box)}`);
}

const ana = await sessionOf("ana", need("ANA_PASSWORD"));

// The second run (SEARCH_BUSY set): search's load is recorded over the bar and a document waits in the pipeline,
// held back for search; only this scenario runs. The first run, with no load recorded, checks the notice is absent.
if (env.SEARCH_BUSY) {
  await scenario("ingestion: 'Cedendo à busca' while search is busy, with the documents that wait", async (context) => {
    const page = await openPage(context, "/ingestao");
    const notice = page.locator(".yielding");
    await notice.waitFor();
    assert.match(await notice.textContent(), /^Cedendo à busca: (1 documento aguarda|\d+ documentos aguardam) \(busca p95 1,8 s\)$/);
    assert.equal(await notice.getAttribute("role"), "status", "read out by a screen reader");
    await checkAxe(page, "/ingestao (cedendo à busca)");
  }, { storageState: ana });
  await finish();
}

const bruno = await sessionOf("bruno", need("BRUNO_PASSWORD"));
const PUBLIC_FILE = need("PUBLIC_FILE");
const REVIEW_FILE = need("REVIEW_FILE");
const LOCKED_FILE = need("LOCKED_FILE");
const REVIEW_ID = need("REVIEW_ID");
const LOCKED_ID = need("LOCKED_ID");
const REFUSED_MARKER = need("REFUSED_MARKER");

await scenario("menus: only what each person may do", async (context) => {
  const page = await openPage(context, "/");
  const research = ["Pesquisa", "Pastas", "Pesquisas salvas", "Histórico"]; // whoever searches (issue 34)
  assert.deepEqual(await menu(page), [...research, "Ingestão", "Revisão"], "ana reviews; no Tesauro: not an admin");
  const other = await browser.newContext({ viewport: DESKTOP, locale: "pt-BR", storageState: bruno });
  try {
    const hers = await other.newPage();
    await hers.goto(`${GW}/`);
    assert.deepEqual(await menu(hers), [...research, "Ingestão"], "bruno has no review rights: no Revisão");
    await hers.goto(`${GW}/revisao`);
    await hers.getByText("Você não tem permissão de revisão").waitFor();
    assert.equal(await hers.getByRole("table").count(), 0, "no queue for him");
    const refused = await other.request.get(`${GW}/api/review`);
    assert.equal(refused.status(), 403, "the API refuses him the queue anyway");
  } finally {
    await other.close();
  }
}, { storageState: ana });

await scenario("ingestion: the list in Portuguese, searched by name, filtered by state, with history", async (context) => {
  const page = await openPage(context, "/ingestao");
  const names = await listed(page);
  for (const name of [PUBLIC_FILE, REVIEW_FILE, LOCKED_FILE]) assert.ok(names.includes(name), `${name} in ${names}`);
  const text = await visibleText(page);
  assert.doesNotMatch(text, RAW, "no reason code or English on the page");
  assert.doesNotMatch(text, /Cedendo à busca/, "no search load recorded: ingestion holds nothing back");
  assert.match(text, /Aguardando revisão \(parado na extração do texto\)/);
  assert.match(text, /Protegido por senha/);
  assert.match(text, /Leitura da imagem pouco confiável|Confiança da leitura/);

  await page.getByLabel("Buscar pelo nome ou título").fill("DIGITALIZAÇAO_OPER"); // case and accents aside
  await page.waitForFunction((want) => {
    const items = [...document.querySelectorAll(".document-item h3")].map((h) => h.textContent);
    return items.length === 1 && items[0] === want;
  }, REVIEW_FILE);
  assert.match(page.url(), /[?&]q=DIGITALIZA/, "the search is in the address, to share");
  await page.getByLabel("Buscar pelo nome ou título").fill("");
  await page.getByLabel("Situação").selectOption({ label: "Aguardando revisão" });
  await page.waitForFunction(() => {
    const states = [...document.querySelectorAll(".document-item .state")].map((s) => s.textContent);
    return states.length >= 2 && states.every((s) => s.startsWith("Aguardando revisão"));
  });
  const stopped = await page.locator(".document-item h3").allTextContents();
  assert.ok(!stopped.includes(PUBLIC_FILE), "the indexed decision is filtered out");
  await page.getByLabel("Situação").selectOption({ label: "Indexados" });
  await page.locator(".document-item h3", { hasText: PUBLIC_FILE }).waitFor();

  const item = page.locator(".document-item", { hasText: PUBLIC_FILE });
  await item.locator("summary", { hasText: "Histórico" }).click();
  const history = item.locator(".history");
  await history.waitFor();
  const steps = await history.locator("li").allTextContents();
  for (const step of ["Recebido", "Texto extraído", "Indexado"]) {
    assert.ok(steps.some((s) => s.includes(step)), `${step} in the history: ${steps}`);
  }
  assert.doesNotMatch(await visibleText(page), /\bpages\b|\bchunks\b|\bby OCR\b|\(new\)/, "the history in Portuguese");
  assert.ok(steps.some((s) => /\d+ páginas, nenhuma lida da imagem/.test(s)), `the extraction's detail: ${steps}`);
  if (SHOTS) {
    await page.getByLabel("Situação").selectOption({ label: "Todos" });
    await listed(page);
    await page.screenshot({ path: path.join(SHOTS, "ingestion.png"), fullPage: false });
  }
  await checkAxe(page, "/ingestao");
}, { storageState: ana });

await scenario("ingestion: 'Enviar documentos' with access groups, each file's outcome, the wall holds", async (context) => {
  const page = await openPage(context, "/ingestao");
  await page.getByRole("heading", { name: "Enviar documentos" }).waitFor();
  await page.getByLabel("Arquivos").setInputFiles([
    {
      name: UPLOADED,
      mimeType: "text/plain",
      buffer: Buffer.from("Nota interna enviada pela página de ingestão sobre a prescrição intercorrente.\n"),
    },
    { name: "vazio.txt", mimeType: "text/plain", buffer: Buffer.alloc(0) },
  ]);
  await page.getByLabel("Todo o escritório").uncheck();
  await page.getByLabel("Grupo socios").check();
  await page.getByRole("button", { name: "Enviar documentos" }).click();
  const results = page.getByRole("list", { name: "Resultado do envio" });
  await results.locator("li", { hasText: "vazio.txt" }).waitFor();
  const lines = await results.locator("li").allTextContents();
  assert.ok(lines.some((l) => l.startsWith(`${UPLOADED}: Recebido`)), `the upload's outcome: ${lines}`);
  assert.ok(lines.some((l) => l.startsWith("vazio.txt: Não enviado")), `an empty file is refused: ${lines}`);
  await page.locator(".document-item h3", { hasText: UPLOADED }).waitFor(); // the list is asked again
  // It goes on by itself: the list asks again while a document is on its way.
  await page
    .locator(".document-item", { hasText: UPLOADED })
    .locator(".state", { hasText: "Indexado" })
    .waitFor({ timeout: 180_000 });

  const other = await browser.newContext({ viewport: DESKTOP, locale: "pt-BR", storageState: bruno });
  try {
    const his = await other.newPage();
    await his.goto(`${GW}/ingestao?q=nota_enviada`);
    assert.deepEqual(await listed(his), [], "bruno (contencioso) never sees a socios upload");
    const asked = await other.request.get(`${GW}/api/documents?q=nota_enviada`);
    assert.equal(asked.status(), 200);
    assert.deepEqual(await asked.json(), { total: 0, documents: [] });
  } finally {
    await other.close();
  }
}, { storageState: ana });

await scenario("review: 'Aprovar' is not the primary action, asks to confirm what will be indexed, refuses without text", async (context) => {
  const page = await openPage(context, `/revisao?id=${LOCKED_ID}`);
  await page.getByRole("heading", { name: LOCKED_FILE }).waitFor();
  const approveLocked = page.getByRole("button", { name: "Aprovar" });
  assert.ok(await approveLocked.isDisabled(), "nothing to approve in a locked PDF");
  await page.getByText("Não há texto extraído para aprovar").waitFor();
  assert.doesNotMatch(await visibleText(page), RAW);

  await page.getByRole("link", { name: REVIEW_FILE }).click();
  await page.waitForURL(new RegExp(`/revisao\\?id=${REVIEW_ID}`));
  await page.getByRole("heading", { name: REVIEW_FILE }).waitFor();
  const approve = page.getByRole("button", { name: "Aprovar" });
  await page.getByLabel("Texto extraído da página 1").waitFor();
  assert.ok(await approve.isEnabled());
  const look = await approve.evaluate((b) => {
    const style = getComputedStyle(b);
    return { background: style.backgroundColor, className: b.className };
  });
  assert.equal(look.background, "rgb(255, 255, 255)", `Aprovar is outlined, not filled: ${JSON.stringify(look)}`);
  for (const name of ["Ler as páginas de novo", "Rejeitar", "Salvar correção"]) await page.getByRole("button", { name }).first().waitFor();
  assert.doesNotMatch(await visibleText(page), RAW);
  await page.waitForFunction(() => {
    const img = document.querySelector('img[alt="Imagem da página 1"]');
    return img && img.complete && img.naturalWidth > 0;
  });
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "review.png"), fullPage: false });
  await checkAxe(page, "/revisao");

  let approved = 0;
  page.on("request", (r) => {
    if (r.url().endsWith("/approve")) approved += 1;
  });
  await approve.click();
  const confirm = page.getByRole("group", { name: `Aprovar ${REVIEW_FILE}?` });
  await confirm.waitFor();
  const said = (await confirm.textContent()) ?? "";
  assert.match(said, /Será indexado o texto de (\d+ de )?\d+ páginas?.*: [\d.]+ caracteres?/, said);
  assert.equal(approved, 0, "nothing is approved before the confirmation");
  await confirm.getByRole("button", { name: "Cancelar" }).click();
  await confirm.waitFor({ state: "detached" });
  assert.equal(approved, 0);

  // An unsaved correction would be lost: the confirmation says so and waits for it to be saved.
  const text = page.getByLabel("Texto extraído da página 1");
  await text.fill(`${await text.inputValue()} (conferido)`);
  await approve.click();
  await confirm.getByText("não foi salva").waitFor();
  assert.ok(await confirm.getByRole("button", { name: "Confirmar aprovação" }).isDisabled());
  await page.getByRole("button", { name: "Salvar correção" }).first().click();
  await page.getByRole("status").filter({ hasText: "Página 1 corrigida" }).waitFor();
  await approve.click();
  await confirm.getByRole("button", { name: "Confirmar aprovação" }).click();
  await page.getByRole("status").filter({ hasText: `Aprovado: ${REVIEW_FILE}` }).waitFor();
  assert.equal(approved, 1);
  await page.getByRole("link", { name: REVIEW_FILE }).waitFor({ state: "detached" }); // out of the queue
  await page.getByRole("link", { name: LOCKED_FILE }).waitFor(); // the other one stays
}, { storageState: ana });

await scenario("ingestion: an administrator sees 'Mensagens recusadas', the one naming no document too", async (context) => {
  const page = await openPage(context, "/ingestao");
  const section = page.locator("section.refused");
  await section.getByRole("heading", { name: "Mensagens recusadas" }).waitFor();
  const item = section.locator(".refused-list li", { hasText: REFUSED_MARKER });
  await item.waitFor();
  const text = await item.innerText();
  assert.match(text, /recusou uma mensagem de documents\.submitted que não diz de qual documento é/, text);
  assert.match(text, /Motivo: the message is not JSON/, text);
  assert.match(text, /Começo da mensagem: b'/, text);
  await checkAxe(page, "/ingestao (administrator)");

  const other = await browser.newContext({ viewport: DESKTOP, locale: "pt-BR", storageState: ana });
  try {
    const hers = await other.newPage();
    await hers.goto(`${GW}/ingestao`);
    await listed(hers);
    assert.equal(await hers.getByRole("heading", { name: "Mensagens recusadas" }).count(), 0, "ana is no administrator");
    const refused = await other.request.get(`${GW}/api/refused-messages`);
    assert.equal(refused.status(), 403, "the API refuses her the list anyway");
  } finally {
    await other.close();
  }
}, { storageState: await sessionOf("carla", need("CARLA_PASSWORD")) });

await scenario("phone (390x844): no horizontal scroll, 'Sair' reachable, menu and pages usable", async (context) => {
  const page = await context.newPage();
  for (const route of ["/", "/ingestao", `/revisao?id=${LOCKED_ID}`]) {
    await page.goto(`${GW}${route}`);
    await page.getByRole("button", { name: "Sair" }).waitFor();
    if (route === "/ingestao") await listed(page);
    if (route.startsWith("/revisao")) await page.getByRole("heading", { name: LOCKED_FILE }).waitFor();
    await fitsThePhone(page, route);
  }
  await page.getByRole("navigation", { name: "Principal" }).getByRole("link", { name: "Ingestão" }).click();
  await page.waitForURL(`${GW}/ingestao`);
  await page.getByLabel("Situação").selectOption({ label: "Aguardando revisão" });
  await page.locator(".document-item h3", { hasText: LOCKED_FILE }).waitFor();
  await fitsThePhone(page, "/ingestao (filtered)");
  await page.getByRole("button", { name: "Sair" }).click();
  await page.waitForURL(/\/login/);
}, { storageState: await sessionOf("ana", need("ANA_PASSWORD")), viewport: PHONE });

await finish();
