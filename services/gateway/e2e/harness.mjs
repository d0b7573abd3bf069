/**
 * What the browser scenarios share: Debian's chromium in Portuguese, a runner that counts what passed and
 * failed (each scenario in a fresh context), signing in once per person, and axe-core's serious and critical
 * violations. axe-core is a devDependency: a missing one fails the run, it never skips the check.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
export const DESKTOP = { width: 1366, height: 900 };
export const PHONE = { width: 390, height: 844 };

/** An environment variable the scenarios cannot run without: its value, or an error that names it. */
export function need(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--lang=pt-BR"],
    env: { ...process.env, LANG: "pt_BR.UTF-8", LANGUAGE: "pt_BR:pt" },
  });
}

/** `scenario(name, body, {storageState, viewport})` runs `body(context)`; `finish()` prints the counts and exits. */
export function runner(browser, { timeout = 20_000 } = {}) {
  let passed = 0;
  let failed = 0;
  async function scenario(name, body, { storageState, viewport = DESKTOP } = {}) {
    const started = Date.now();
    const context = await browser.newContext({ viewport, locale: "pt-BR", storageState });
    context.setDefaultTimeout(timeout);
    try {
      await body(context);
      passed += 1;
      console.log(`ok   ${name} (${Date.now() - started} ms)`);
    } catch (err) {
      failed += 1;
      console.log(`FAIL ${name} (${Date.now() - started} ms)\n${err?.stack ?? err}`);
    } finally {
      await context.close();
    }
  }
  async function finish() {
    await browser.close();
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed === 0 && passed > 0 ? 0 : 1);
  }
  return { scenario, finish };
}

/** Signs in once and keeps the cookie: every sign-in from this machine counts against the API's per-address budget. */
export async function sessionOf(browser, gateway, user, password) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${gateway}/login?next=%2F`);
    await page.getByLabel("Usuário").fill(user);
    await page.getByLabel("Senha").fill(password);
    await page.getByRole("button", { name: "Entrar" }).click();
    await page.waitForURL(`${gateway}/`);
    return await context.storageState();
  } finally {
    await context.close();
  }
}

/** axe-core's serious and critical violations on the page as it stands. */
export async function axeViolations(page) {
  await page.evaluate(`${AXE}\n;0`);
  const found = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
  });
  return found.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/**
 * Waits until React has hydrated the element `selector` names (React sets its `__reactProps$…` key on a node it
 * took over). Text typed into the server-rendered field before then can be lost to hydration, and the Enter that
 * follows sends no search: the page's scenarios timed out waiting for a result under the whole suite's load.
 */
export async function hydrated(page, selector) {
  await page.waitForFunction((sel) => {
    const node = document.querySelector(sel);
    return node !== null && Object.keys(node).some((key) => key.startsWith("__reactProps$"));
  }, selector);
}

/**
 * Types `query` into the page's search field once the page is live, presses Enter and returns that query's POST
 * /api/search response (a search still in flight from before answers too, so the query is matched).
 */
export async function submitSearch(page, query) {
  await hydrated(page, "#consulta");
  const field = page.locator("#consulta");
  await field.fill(query);
  const answered = page.waitForResponse(
    (r) => r.url().endsWith("/api/search") && r.request().method() === "POST" && r.request().postDataJSON()?.query === query,
  );
  await field.press("Enter");
  return answered;
}

/**
 * Opens the search page, searches for `query` and returns the first result's card. Fails with the API's status and
 * body when the search is refused, rather than waiting for a card that never comes.
 */
export async function searchFromHome(page, gateway, query) {
  await page.goto(`${gateway}/`);
  const response = await submitSearch(page, query);
  if (response.status() !== 200) throw new Error(`the search for "${query}" answered ${response.status()}: ${await response.text()}`);
  const card = page.locator("article.result").first();
  await card.waitFor();
  return card;
}
