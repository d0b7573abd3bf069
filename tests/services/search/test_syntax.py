"""The courts' query syntax: how queries are read, and that PostgreSQL matches passages as a lawyer means them."""

import random
import re
from pathlib import Path

import asyncpg
import pymupdf
import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.search.syntax import MAX_DEPTH, ParsedQuery, parse_query, required_clause

DOCS = Path(__file__).parents[3] / ".." / "shared" / "docs"

ORDINARY = [
    "dano moral e material",
    "responsabilidade civil ou objetiva do fornecedor",
    "não incidência de ICMS sobre transferência entre estabelecimentos",
    "art. 14 (CDC) responsabilidade do fornecedor",
    "Lei 8.078/90 - CDC",
    "Lei 8.078/90 – CDC",
    "ex-empregado horas extras",
    "DANO MORAL E MATERIAL",  # an ementa in capitals: its E is the conjunction
    "RECURSO ESPECIAL. DIREITO DO CONSUMIDOR OU NÃO",
    "d'água",
    "R$ 1.000,00 de multa",
    "a*",  # too short to truncate: not an operator
    "",
]


@pytest.mark.parametrize("query", ORDINARY)
def test_an_ordinary_query_is_left_exactly_as_it_is(query: str) -> None:
    assert parse_query(query) == ParsedQuery(text=query, required=None, phrases=[], excluded=[])


@pytest.mark.parametrize(
    "query",
    [
        '"responsabilidade solidária',  # unclosed quote
        "responsabilidade - solidária",  # a lone -
        "dano -",
        "dano (-) moral",
        "-§ dano",  # a - before no word
        "dano OU",  # OU at the end
        "OU dano",
        "E dano",
        "dano E",
        "dano E OU moral",
        "dano OU OU moral",
        "dano NÃO",
        "(dano OU moral",  # unbalanced parentheses
        "dano OU moral)",
        ")dano OU moral(",
        "() OU dano",
        '"" -arbitragem',  # an empty phrase
        '"§ —" dano OU moral',
        "-arbitragem",  # only exclusions: nothing to look for
        "NÃO arbitragem",
        '-arbitragem -"cláusula compromissória"',
        "NÃO (arbitragem OU mediação)",
        "(" * (MAX_DEPTH + 2) + "dano OU moral" + ")" * (MAX_DEPTH + 2),  # nested too deep
        "NÃO " * (MAX_DEPTH + 2) + "dano",
        "(" * 5000 + "a OU b",
    ],
)
def test_a_query_outside_the_syntax_is_plain_text(query: str) -> None:
    assert parse_query(query) == ParsedQuery(text=query)


def test_a_phrase_is_required_and_kept_for_ranking_and_highlighting() -> None:
    parsed = parse_query('"responsabilidade solidária" dos fornecedores')
    assert parsed.text == "responsabilidade solidária dos fornecedores"
    assert parsed.required == "'responsabilidade solidária' & 'dos' & 'fornecedores'"
    assert parsed.phrases == ["responsabilidade solidária"]
    assert parsed.excluded == []


def test_curly_quotes_as_word_processors_type_them_make_a_phrase() -> None:
    parsed = parse_query("“cláusula   compromissória” nulidade")
    assert parsed.phrases == ["cláusula compromissória"]
    assert parsed.required == "'cláusula compromissória' & 'nulidade'"


@pytest.mark.parametrize(
    ("query", "required", "excluded"),
    [
        ("dano moral -estético", "'dano' & 'moral' & !'estético'", ["estético"]),
        ("dano moral NÃO estético", "'dano' & 'moral' & !'estético'", ["estético"]),
        ("dano moral NAO estético", "'dano' & 'moral' & !'estético'", ["estético"]),
        ("dano moral NA\u0303O estético", "'dano' & 'moral' & !'estético'", ["estético"]),  # NÃO decomposed
        (
            'arbitragem -"cláusula compromissória"',
            "'arbitragem' & !'cláusula compromissória'",
            ["cláusula compromissória"],
        ),
        ("arbitragem -(nulidade OU anulação)", "'arbitragem' & !( 'nulidade' | 'anulação' )", ["nulidade", "anulação"]),
        ("arbitragem -trabalh*", "'arbitragem' & !( 'trabalh':* | 'traba' | 'trabal' )", ["trabalh*"]),
    ],
)
def test_exclusions(query: str, required: str, excluded: list[str]) -> None:
    parsed = parse_query(query)
    assert parsed.required == required
    assert parsed.excluded == excluded
    assert "estético" not in parsed.text and "nulidade" not in parsed.text and "trabalh" not in parsed.text


def test_ou_binds_tighter_than_e_and_parentheses_say_otherwise() -> None:
    assert parse_query("dano moral OU material").required == "'dano' & ( 'moral' | 'material' )"
    assert parse_query("(dano moral) OU material").required == "( 'dano' & 'moral' ) | 'material'"
    assert parse_query("dano E moral").required == "'dano' & 'moral'"
    assert parse_query("(extradição NÃO China) OU (exequatur NÃO STJ)").required == (
        "( 'extradição' & !'China' ) | ( 'exequatur' & !'STJ' )"
    )
    parsed = parse_query("(dano OU prejuízo) E NÃO arbitragem")
    assert parsed.text == "dano prejuízo"
    assert parsed.excluded == ["arbitragem"]


def test_lowercase_e_ou_nao_are_words_in_a_boolean_query() -> None:
    parsed = parse_query('"dano moral" e material ou estético não')
    assert parsed.required == "'dano moral' & 'e' & 'material' & 'ou' & 'estético' & 'não'"
    assert parsed.text == "dano moral e material ou estético não"


def test_a_query_in_capitals_keeps_its_quotes_and_exclusions() -> None:
    parsed = parse_query('"DANO MORAL" E MATERIAL -ESTÉTICO')
    assert parsed.required == "'DANO MORAL' & 'E' & 'MATERIAL' & !'ESTÉTICO'"
    assert parsed.excluded == ["ESTÉTICO"]


def test_truncation_matches_the_root_and_the_stems_it_may_reach_past() -> None:
    parsed = parse_query("responsabili* solidária")
    assert parsed.text == "responsabili solidária"
    assert parsed.required == (
        "( 'responsabili':* | 'respons' | 'responsa' | 'responsab' | 'responsabi' | 'responsabil' ) & 'solidária'"
    )
    assert parse_query("arbitr*").required == "( 'arbitr':* | 'arbit' )"
    assert parse_query("art.5* dano").required is None  # no letters-only root: the * is noise


def test_words_inside_words_are_not_operators() -> None:
    parsed = parse_query('ex-empregado "horas extras" OU-NÃO E-commerce')
    assert parsed.required == "'ex-empregado' & 'horas extras' & 'OU-NÃO' & 'E-commerce'"
    assert parsed.excluded == []


QUOTED_OPERAND = re.compile(r"'(?:[^'\\]|\\.|'')*'")


@pytest.mark.parametrize(
    "query",
    [
        "dano' OR '1'='1 \"x\"",
        '"\'; DROP TABLE chunks; --" dano',
        '"a\\ b\\\\c" -d\\',
        'dano:* & | ! <-> <2> (x) : * "x:A"',
        "'''' \"x''y\" -'z",
        '"$14::text IS NULL" OR 1=1',
        '\\\\\\ "a\\\'b" -\\*c',
        "-'dano' & !moral",
    ],
)
def test_hostile_text_stays_inside_quoted_operands(query: str) -> None:
    required = parse_query(query).required
    assert required is not None
    outside = QUOTED_OPERAND.sub("", required)  # what PostgreSQL reads as tsquery syntax: only our operators
    assert set(outside) <= set(" &|!():*"), outside


@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=120))
def test_any_text_parses_without_error(query: str) -> None:
    parsed = parse_query(query)
    if parsed.required is None:
        assert parsed == ParsedQuery(text=query)
    else:
        assert parsed.text.strip()


@given(st.text(alphabet="abcdeáçõ ,.;", max_size=80))
def test_text_without_operators_is_unchanged(query: str) -> None:
    assert parse_query(query) == ParsedQuery(text=query)


def test_required_clause_takes_only_a_bind_parameter() -> None:
    clause = required_clause("$14")
    assert clause.startswith(
        "($14::text IS NULL OR (c.language = 'pt' AND (numnode(to_tsquery('public.pt_unaccent', $14::text)) = 0"
        " OR c.tsv @@ to_tsquery('public.pt_unaccent', $14::text)))"
    )
    assert " OR (c.language = 'en' AND (numnode(to_tsquery('public.en_unaccent', $14::text)) = 0" in clause
    assert required_clause(":required").startswith("(:required::text IS NULL OR (c.language = 'pt'")
    for bad in ["14", "$0", "$1; DROP TABLE chunks", "$1)", "c.tsv", "", ":required)", ":x; DROP TABLE chunks"]:
        with pytest.raises(ValueError):
            required_clause(bad)


# Against the real PostgreSQL, through the very clause the search adds: does the passage pass?
_PASSES = (
    "SELECT count(*) = 1 FROM (SELECT to_tsvector('public.pt_unaccent', $1::text) AS tsv, 'pt' AS language) c "
    f"WHERE {required_clause('$2')}"
)

SOLIDARIA = (
    "Configurada a responsabilidade solidária de todos os fornecedores que integram a cadeia de consumo, "
    "nos termos do art. 7º, parágrafo único, do CDC."
)
APART = "A obrigação é solidária entre os réus, mas a responsabilidade de cada um será apurada na liquidação."
SOLIDARIAS_SEM_ACENTO = "As responsabilidades solidarias das empresas do grupo economico foram reconhecidas."
ARBITRAGEM = (
    "A cláusula compromissória afasta a jurisdição estatal; a sentença arbitral produz os mesmos efeitos "
    "da sentença judicial (Lei 9.307/1996, art. 31)."
)
DANO_MATERIAL = "Restou comprovado o dano material decorrente do defeito do produto, com prejuízo de R$ 5.000,00."
DANO_MORAL = "O dano moral é presumido (in re ipsa) na inscrição indevida em cadastro de inadimplentes."
PRESCRICAO = "Reconhecida a prescrição quinquenal da pretensão indenizatória contra a Fazenda Pública."


async def _passes(pool: asyncpg.Pool, passage: str, query: str) -> bool:
    return await pool.fetchval(_PASSES, passage, parse_query(query).required)


@pytest.mark.parametrize(
    ("query", "passage", "expected"),
    [
        # A phrase is a phrase: side by side, in order; accents and plurals as the index stems them.
        ('"responsabilidade solidária"', SOLIDARIA, True),
        ('"responsabilidade solidária"', APART, False),
        ('"solidária responsabilidade"', SOLIDARIA, False),
        ('"responsabilidade solidaria"', SOLIDARIA, True),
        ('"responsabilidade solidária"', SOLIDARIAS_SEM_ACENTO, True),
        ('"RESPONSABILIDADE SOLIDÁRIAS"', SOLIDARIA, True),
        ('"dano in re ipsa"', DANO_MORAL, False),  # "dano moral é presumido (in re ipsa)"
        ('"presumido in re ipsa"', DANO_MORAL, True),
        ('"inscrição indevida em cadastro"', DANO_MORAL, True),  # across a stop word ("em")
        ('"inscrição indevida no cadastro"', DANO_MORAL, True),  # another stop word there: <2> counts positions
        ('"inscrição cadastro"', DANO_MORAL, False),
        ('"Lei 9.307/1996"', ARBITRAGEM, True),
        ('"Lei 9.307/1997"', ARBITRAGEM, False),
        # Exclusions.
        ("sentença -arbitral", ARBITRAGEM, False),
        ("sentença -compromissórias", ARBITRAGEM, False),  # excluded by stem too
        ("sentença -trabalhista", ARBITRAGEM, True),
        ("sentença NÃO arbitral", ARBITRAGEM, False),
        ("sentença NAO arbitral", ARBITRAGEM, False),
        ('sentença -"cláusula compromissória"', ARBITRAGEM, False),
        ('sentença -"compromissória cláusula"', ARBITRAGEM, True),
        ("sentença -(penal OU trabalhista)", ARBITRAGEM, True),
        ("sentença -(penal OU arbitral)", ARBITRAGEM, False),
        # OU and E.
        ("dano moral OU material", DANO_MATERIAL, True),
        ("dano moral OU material", DANO_MORAL, True),
        ("dano moral OU material", ARBITRAGEM, False),
        ("dano E material", DANO_MATERIAL, True),
        ("dano E material", DANO_MORAL, False),
        ('"dano moral" OU "dano material"', DANO_MATERIAL, True),
        ('"dano moral" OU "dano estético"', DANO_MATERIAL, False),
        ("(dano E prejuízo) OU arbitral", DANO_MATERIAL, True),
        ("(dano E prejuízo) OU arbitral", DANO_MORAL, False),
        ("(dano E prejuízo) OU arbitral", ARBITRAGEM, True),
        ("dano OU prejuízo -moral", DANO_MORAL, False),
        ("dano OU prejuízo -moral", DANO_MATERIAL, True),
        # Truncation, including roots typed past the stem.
        ("arbitr* E sentença", ARBITRAGEM, True),
        ("responsabili* E fornecedores", SOLIDARIA, True),
        ("solidari* E fornecedores", SOLIDARIA, True),
        ("prescri* E fazenda", PRESCRICAO, True),
        ("indeniz* E fazenda", PRESCRICAO, True),
        ("indeniz* E fazenda", ARBITRAGEM, False),
        ("sentença -compromiss*", ARBITRAGEM, False),
        # A requirement PostgreSQL finds no word in (only stop words) restricts nothing.
        ('"de a" OU "o"', ARBITRAGEM, True),
        ('"de" -"com"', ARBITRAGEM, True),
        # Hostile text is text: these look for words, and fail or pass as words do.
        ('"\'; DROP TABLE chunks; --" dano', DANO_MORAL, False),
        ('"sentença arbitral" OR 1=1', ARBITRAGEM, False),  # requires the words "or" and "1=1"
        ('"sentença arbitral" -"x\\\'y"', ARBITRAGEM, True),
        ('"sentença" sentença:* & | ! <-> arbitral', ARBITRAGEM, True),  # "&", "|", "!", "<->" are no words
        ('"sentença" sentença:* & | ! <-> arbitral:A', DANO_MORAL, False),
    ],
)
async def test_passages_pass_the_requirement_as_a_lawyer_means_it(
    pool: asyncpg.Pool, query: str, passage: str, expected: bool
) -> None:
    assert await _passes(pool, passage, query) is expected


async def test_an_ordinary_query_requires_nothing(pool: asyncpg.Pool) -> None:
    assert await pool.fetchval(_PASSES, ARBITRAGEM, parse_query("dano moral e material").required) is True


async def test_a_real_decision(pool: asyncpg.Pool) -> None:
    """The TJSP sentença on arbitration: its own phrases match, the same words reordered do not."""
    with pymupdf.open(DOCS / "tjsp_sentenca_vara_empresarial_arbitragem.pdf") as doc:
        text = " ".join(page.get_text() for page in doc)
    assert await _passes(pool, text, '"nulidade da cláusula compromissória" E arbitral')
    assert await _passes(pool, text, '"nulidade da clausula compromissoria" -trabalhista')
    assert not await _passes(pool, text, '"compromissória cláusula nulidade"')
    assert not await _passes(pool, text, '"nulidade da cláusula compromissória" -arbitragem')
    assert await _passes(pool, text, '"dano moral" OU "danos morais"')


async def test_no_input_makes_postgresql_fail(pool: asyncpg.Pool) -> None:
    """Hundreds of random queries of operators, quotes, backslashes and odd Unicode: all valid to_tsquery input."""
    pieces = [
        "dano", "moral", "E", "OU", "NÃO", "NAO", "-", '"', "“", "”", "(", ")", "*", "'", "\\", ":", "&", "|",
        "!", "<->", "<2>", ":*", "'';", "--", "ç", "á", "日本", "🙂", "\u200b", "\u0301", "§", "º", " ", " ",
        "arbitr*", "-x", "$1", "1=1", "A:B", "a'b", "ﬁ", "𝔸",
    ]  # fmt: skip
    rng = random.Random(7)
    queries = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 25))) for _ in range(1500)]
    queries += ["x" * 3000 + ' "' + "á" * 1500 + '" -y']  # words too long to index
    required = [r for q in queries if (r := parse_query(q).required) is not None]
    assert len(required) > 100
    passed = await pool.fetchval(
        "SELECT count(*) FROM unnest($2::text[]) r WHERE numnode(to_tsquery('public.pt_unaccent', r)) = 0"
        " OR to_tsvector('public.pt_unaccent', $1::text) @@ to_tsquery('public.pt_unaccent', r)",
        ARBITRAGEM,
        required,
    )
    assert 0 <= passed <= len(required)


async def test_the_requirement_is_served_by_the_full_text_index(pool: asyncpg.Pool) -> None:
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL enable_seqscan = off")
        await conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")
        plan = await conn.fetch(
            f"EXPLAIN SELECT c.id FROM chunks c WHERE {required_clause('$1')}",
            parse_query('"responsabilidade solidária" -arbitragem').required,
        )
    assert "chunks_tsv" in "\n".join(row[0] for row in plan)
