"""The `precedente` command as a newcomer meets it, without a stack: its help (exit codes, valid filter values),
one-line errors with the fix for wrong usage and bad configuration, file selection for `ingest`, and search
results that fit an 80-column terminal."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from precedente import api_errors
from precedente.cli import main
from precedente.cli.ingest import _count_text, _files, _outside_warning
from precedente.cli.search import result_lines, write_results

DOCS = Path(__file__).parents[2] / ".." / "shared" / "docs"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The CLI in this process, as `precedente ARGS`: its exit status, stdout and stderr."""
    with pytest.raises(SystemExit) as ended:
        main(list(args))
    out, err = capsys.readouterr()
    return ended.value.code, out, err


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("precedente: "), err
    assert "Traceback" not in err
    return lines[0]


def test_help_documents_every_exit_status(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    status, out, _ = run(capsys, "--help")
    assert status == 0
    text = " ".join(out.replace("│", " ").split())
    for code in api_errors.EXIT_CODES:
        assert f"; {code} " in text or f"Exit status: {code} " in text, code
    assert "whoami" in text and "PRECEDENTE_API_KEY" in text


@pytest.mark.parametrize(
    ("command", "words"),
    [
        (["search"], ["Busca na base", "Resultados por página", "Tribunal ou origem", "Valores válidos"]),
        (["ingest"], ["Envia arquivos", "Espera cada arquivo", "Exemplos"]),
        (["review"], ["fila de revisão", "Só este código de motivo"]),
        (["review", "reocr"], ["Lê as páginas de novo", "Resolução da nova leitura"]),
        (["status"], ["Por etapa", "fila de revisão"]),
        (["whoami"], ["Como quem a linha de comando age", "Imprime JSON"]),
    ],
)
def test_the_commands_lawyers_use_help_in_portuguese(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: list[str], words: list[str]
) -> None:
    """Their help was English beside Portuguese results (issue 36); option names stay as they are."""
    monkeypatch.setenv("COLUMNS", "200")
    status, out, _ = run(capsys, *command, "--help")
    text = " ".join(out.replace("│", " ").split())
    assert status == 0
    for word in words:
        assert word in text, (command, word, text)
    for english in ("Search a running", "Upload files", "Print JSON", "Search API URL", "Wait until", "re-OCR"):
        assert english not in text, (command, english)


def test_search_help_lists_the_valid_values(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    status, out, _ = run(capsys, "search", "--help")
    assert status == 0
    text = " ".join(out.replace("│", " ").split())
    for option in ("--type", "--subtype", "--court", "--from", "--to", "--relator", "--judging-body", "--cited-law"):
        assert option in text, option
    for option in ("--sort", "--page", "--offset", "--top-k", "--json"):
        assert option in text, option
    for code in ("acordao", "decisao_monocratica", "jurisprudencia_compilada", "lei_complementar", "stj", "tj+UF"):
        assert code in text, code


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["search", "dano moral", "--type", "acordam"], ["--type", "'acordam'", "acordao", "sentenca", "parecer"]),
        (["search", "dano moral", "--subtype", "leizinha"], ["--subtype", "lei_complementar", "medida_provisoria"]),
        (["search", "dano moral", "--court", "TJ-XX"], ["--court", "'TJ-XX'", "stj", "trf1-trf6", "tj+UF (tjsp)"]),
        (["search", "dano moral", "--from", "31/02/2019"], ["--from", "2019-03-12", "12/03/2019"]),
        (["search", "dano moral", "--from", "2020", "--to", "2019"], ["--from", "é depois de --to"]),
        (["search", "dano moral", "--sort", "antigos"], ["--sort", "relevance", "date"]),
        (["search"], ["Missing argument", "search --help"]),
        (["serch", "dano"], ["No such command", "search"]),
        (["ingest", "/nao/existe"], ["/nao/existe does not exist", "ingest --help"]),
        (["ingest", str(DOCS), "--include", "*.docx"], ["nenhum arquivo a enviar", "--include"]),
    ],
)
def test_wrong_usage_is_one_line_naming_what_is_valid(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, args: list[str], words: list[str]
) -> None:
    """Refused before any request: no API needs to run (nothing listens at this address)."""
    monkeypatch.setenv("PRECEDENTE_API_URL", "http://127.0.0.1:9")
    status, out, err = run(capsys, *args)
    assert status == api_errors.EXIT_USAGE, (out, err)
    line = one_line(err)
    for word in words:
        assert word in line, (word, line)


def test_a_bad_setting_names_the_variable(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRECEDENTE_API_PORT", "oito mil")
    status, _, err = run(capsys, "status")
    assert status == api_errors.EXIT_USAGE
    assert "PRECEDENTE_API_PORT" in one_line(err)


def test_from_another_folder_with_no_stack_every_command_says_how_to_start_it(tmp_path: Path) -> None:
    """The entry point as installed, run where nothing is set up: the line says what to run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRECEDENTE_")}
    for command in (["search", "dano moral"], ["whoami"], ["status"], ["review"], ["keys", "list"]):
        done = subprocess.run(
            [sys.executable, "-m", "precedente.cli", *command],
            capture_output=True,
            text=True,
            timeout=120,
            env={**env, "PRECEDENTE_API_URL": "http://127.0.0.1:9"},
            cwd=tmp_path,
        )
        assert done.returncode == api_errors.EXIT_FAILED, done
        line = one_line(done.stderr)
        assert "cannot reach the search API at http://127.0.0.1:9" in line and "precedente up" in line


def test_ingest_selects_the_decisions_of_shared_docs_with_a_glob() -> None:
    """README's example: the PDFs, also the scans in scanned/, never README.md nor the ground-truth texts."""
    everything = {p.name for p in _files([DOCS])}
    assert "README.md" in everything and any(name.endswith(".groundtruth.txt") for name in everything)
    pdfs = {p.name for p in _files([DOCS], include=["*.pdf"])}
    assert pdfs == {name for name in everything if name.endswith(".pdf")}
    assert "stj_resp_1433940_mg_acordao.pdf" in pdfs and "stj_resp_1433940_mg_scan.pdf" in pdfs
    top = {p.name for p in _files([DOCS], exclude=["README*", "scanned/*"])}
    assert top == {name for name in pdfs if "_scan" not in name}


LONG_RESULT = {
    "rank": 1,
    "relevance": "forte",
    "citation": (
        "BRASIL. Superior Tribunal de Justiça (Terceira Turma). Recurso Especial 1.433.940/MG. Relator: Ministro"
        " Ricardo Villas Bôas Cueva. Julgado em 12/09/2017. Diário da Justiça Eletrônico, 02/10/2017."
    ),
    "document_title": "REsp 1.433.940/MG",
    "document_type": "acordao",
    "court": "stj",
    "document_date": "2017-09-12",
    "judgment_date": "2017-09-12",
    "publication_date": "2017-10-02",
    "relator": "Ricardo Villas Bôas Cueva",
    "judging_body": "Terceira Turma",
    "page_number": 4,
    "page_end": 5,
    "section_path": "voto > II – Da responsabilidade solidária da administradora do shopping center",
    "chunk_text": "A responsabilidade do fornecedor " * 30,
    "relevance_explanation": "trata de responsabilidade solidária do fornecedor (CDC, art. 14)",
    "copies": [{"filename": "stj_resp_1433940_mg_scan_com_um_nome_de_arquivo_muito_comprido.pdf"}],
    "other_passages": [{"page_number": 7}],
}


def test_a_result_wraps_at_80_columns_and_keeps_title_dates_and_pages() -> None:
    lines = result_lines(1, LONG_RESULT, 80)
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    joined = " ".join(line.strip() for line in lines)
    assert "Recurso Especial 1.433.940/MG" in joined and "Ricardo Villas Bôas Cueva" in joined
    assert "julgado em 12/09/2017" in joined and "publicado em 02/10/2017" in joined
    assert "p. 4-5, no voto › II – Da responsabilidade solidária" in joined
    assert "cópias: stj_resp_1433940_mg_scan_com_um_nome_de_arquivo_muito_comprido.pdf"[:40] in joined
    assert "outros trechos: p. 7" in joined


def test_copies_say_which_is_the_inteiro_teor_and_which_only_the_ementa() -> None:
    copies = [{"filename": "i641.pdf", "full_text": True}, {"filename": "i1078.pdf", "full_text": False}]
    copies.append({"filename": "i570.pdf", "full_text": None})
    joined = " ".join(line.strip() for line in result_lines(1, {**LONG_RESULT, "copies": copies}, 80))
    assert "cópias: i641.pdf (inteiro teor), i1078.pdf (só a ementa), i570.pdf" in joined


def test_other_passages_name_each_page_once_with_its_count() -> None:
    """Two passages on page 17 printed "outros trechos: p. 17, p. 17" (issue 36)."""
    others = [{"page_number": 17}, {"page_number": 3}, {"page_number": 17}]
    joined = " ".join(line.strip() for line in result_lines(1, {**LONG_RESULT, "other_passages": others}, 80))
    assert "outros trechos: p. 17 (2 trechos), p. 3" in joined
    assert joined.count("p. 17") == 1


def test_a_result_says_which_pages_of_its_document_were_not_read() -> None:
    joined = " ".join(line.strip() for line in result_lines(1, {**LONG_RESULT, "unread_pages": [10, 11]}, 80))
    assert "páginas 10 e 11 não lidas: a busca não as alcança" in joined
    one = " ".join(line.strip() for line in result_lines(1, {**LONG_RESULT, "unread_pages": [3]}, 80))
    assert "página 3 não lida: a busca não a alcança" in one
    assert "não lida" not in " ".join(result_lines(1, LONG_RESULT, 80))


def test_only_a_decision_is_said_to_be_judged() -> None:
    act = {**LONG_RESULT, "document_type": "ato_normativo", "judgment_date": "1995-02-13", "publication_date": None}
    joined = " ".join(line.strip() for line in result_lines(1, act, 80))
    assert "de 13/02/1995" in joined and "julgado em" not in joined


def test_a_page_of_results_fits_the_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    answer = {"results": [LONG_RESULT, {**LONG_RESULT, "citation": None}], "total": 12, "relevant_total": 3}
    write_results(answer, top_k=2, sort="date")
    out = capsys.readouterr().out
    assert all(len(line) <= 80 for line in out.splitlines()), out
    assert out.startswith("12 resultados (3 com relevância forte ou provável) · 1-2 · página 1 de 6")
    assert "2. [forte] REsp 1.433.940/MG, acordao, stj" in out
    assert "próxima página: --page 2" in out
    write_results({**answer, "total": 1, "results": [LONG_RESULT]}, top_k=2, sort="date")
    assert capsys.readouterr().out.startswith("1 resultado (3 com")  # not "1 resultados"


def test_ingest_warns_only_when_the_files_are_outside_the_callers_groups() -> None:
    admin = {"user": "key:local CLI (precedente up)", "groups": []}
    warning = _outside_warning(admin, "socios,contencioso")
    assert warning is not None and warning.startswith("aviso: key:local CLI (precedente up) não está em socios")
    assert "não encontrará" in warning and "--groups socios,contencioso" in warning
    assert _outside_warning({"user": "ana", "groups": ["socios"]}, "socios,contencioso") is None
    assert _outside_warning(admin, "*") is None  # shared with everyone
    assert _outside_warning(admin, None) is None


def test_ingest_wait_counts_agree_with_their_number() -> None:
    statuses = {"a": {"stage": "indexed"}, "b": {"stage": "failed"}, "c": {"stage": "indexed"}}
    assert _count_text(statuses, 4) == (3, "2 indexados, 0 em revisão, 1 não processado, 1 em andamento")
    assert _count_text({"a": {"stage": "indexed"}}, 1)[1].startswith("1 indexado, ")


def test_a_judging_body_stored_in_english_is_printed_in_portuguese() -> None:
    joined = " ".join(line.strip() for line in result_lines(1, {**LONG_RESULT, "judging_body": "First Chamber"}, 80))
    assert "1ª Secção" in joined and "Chamber" not in joined


def test_the_grade_says_why_it_is_what_it_is() -> None:
    reasoned = {**LONG_RESULT, "relevance_basis": ["conceito equivalente", "vários trechos da mesma decisão"]}
    first = result_lines(1, reasoned, 120)[0]
    assert first.startswith("1. [forte: conceito equivalente, vários trechos da mesma decisão] ")
    assert result_lines(1, LONG_RESULT, 120)[0].startswith("1. [forte] ")


def test_the_part_of_the_decision_is_a_place_after_the_page_not_a_second_type() -> None:
    """RE 657.718/MG's card printed "p. 4 · Acórdão" after the type "Acórdão": the part read as the type twice
    (issue 36). The part after the ementa is said as where the passage is and what it holds."""
    judgment = {**LONG_RESULT, "page_end": 4, "section_path": "acordao", "document_type_label": "Acórdão"}
    joined = " ".join(line.strip() for line in result_lines(1, judgment, 80))
    assert "p. 4, no acórdão (resultado do julgamento)" in joined
    assert "· Acórdão" not in joined
    ementa = " ".join(line.strip() for line in result_lines(1, {**judgment, "section_path": "ementa"}, 80))
    assert "p. 4, na ementa A responsabilidade" in ementa
    bare = " ".join(line.strip() for line in result_lines(1, {**judgment, "section_path": None}, 80))
    assert "02/10/2017 · p. 4 A responsabilidade" in bare  # no part: the page alone, no dangling comma


def test_the_redator_do_acordao_stands_after_the_relator_as_the_citation_names_them() -> None:
    defeated = {**LONG_RESULT, "relator": "Marco Aurélio", "redator": "Roberto Barroso"}
    joined = " ".join(line.strip() for line in result_lines(1, defeated, 80))
    assert "Rel. Marco Aurélio, Red. p/ o acórdão Roberto Barroso · Terceira Turma" in joined
    alone = " ".join(line.strip() for line in result_lines(1, {**defeated, "redator": None}, 80))
    assert "Rel. Marco Aurélio · Terceira Turma" in alone and "Red." not in alone
    same = " ".join(line.strip() for line in result_lines(1, {**defeated, "redator": "Marco Aurélio"}, 80))
    assert "Red." not in same


def test_a_judge_who_decided_alone_is_juiz_not_relator() -> None:
    """The TJSP's 1ª Vara Empresarial sentence (../shared/docs, tjsp_sentenca_vara_empresarial_arbitragem.pdf): its
    citation names "Juiz(a) Larissa Gaspar Tunala"; the line beside it said "Rel." (seen 2026-12-04 from the CLI)."""
    sentence = {
        **LONG_RESULT,
        "document_type": "sentenca",
        "judging_body": "1ª Vara Empresarial e Conflitos de Arbitragem",
        "relator": "Larissa Gaspar Tunala",
        "redator": None,
        "judged_alone": True,  # the API's reading of shared/legal/citing.judged_alone
    }
    joined = " ".join(line.strip() for line in result_lines(1, sentence, 120))
    assert "Juiz(a) Larissa Gaspar Tunala · 1ª Vara Empresarial" in joined and "Rel." not in joined
    chamber = {**sentence, "judged_alone": False, "document_type": "acordao", "judging_body": "18ª Câmara Cível"}
    assert "Rel. Larissa" in " ".join(line.strip() for line in result_lines(1, chamber, 120))
