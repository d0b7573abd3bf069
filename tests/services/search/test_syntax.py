"""The courts' query syntax: how queries are read, and that PostgreSQL matches passages as a lawyer means them."""

import random
import re
from pathlib import Path

import asyncpg
import pymupdf
import pytest
from hypothesis import given
from hypothesis import strategies as st

from precedente.services.search.syntax import (
    ALTERNATIVES,
    MAX_DEPTH,
    MAX_DISTANCE,
    ParsedQuery,
    column_clause,
    parse_query,
    required_clause,
)

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
        # The portals' proximity operators and fields, mistyped.
        "dano ADJ",
        "ADJ3 dano",
        "dano PROX PROX moral",
        "dano ADJ -moral",  # a negation has no position to measure from
        "dano PROX (moral E material)",
        "dano ADJ relator:Salomão",
        "relator:",  # a field with nothing after it
        "relator:§ dano",
        "relator:(Salomão",
        'relator:"Salomão',
        "relator:Salomão OU dano",  # a field beside words in an OU
        "NÃO relator:Salomão dano",
        "relator:(-Salomão) dano",
        "relator:(dano ADJ moral)",
        "tribunal:(STJ E STF) dano",
        "ementa:(relator:Salomão)",
        "dano" + " PROX50 dano" * 4,  # chained, too large to ask PostgreSQL
        "a" + " ADJ a" * (MAX_DEPTH + 2),
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
    if parsed != ParsedQuery(text=query):  # read in the syntax: something to rank, and something asked
        assert parsed.text.strip()
        assert (
            parsed.required
            or parsed.ementa
            or parsed.relator
            or parsed.court
            or parsed.cited_law
            or (parsed.judging_body or parsed.procedural_class)
        )


@given(st.text(alphabet="abcdeáçõ ,.;", max_size=80))
def test_text_without_operators_is_unchanged(query: str) -> None:
    assert parse_query(query) == ParsedQuery(text=query)


@pytest.mark.parametrize(
    ("query", "required"),
    [
        ("excesso ADJ prazo", "'excesso' <1> 'prazo'"),
        ("excesso ADJ1 prazo", "'excesso' <1> 'prazo'"),
        ("excesso ADJ2 prazo", "'excesso' <1> 'prazo' | 'excesso' <2> 'prazo'"),
        ("dano PROX moral", "'dano' <1> 'moral' | 'moral' <1> 'dano'"),
        ("dano PROX2 moral", "'dano' <1> 'moral' | 'moral' <1> 'dano' | 'dano' <2> 'moral' | 'moral' <2> 'dano'"),
        ("dano ADJ moral OU material", "( 'dano' <1> 'moral' ) | 'material'"),  # ADJ binds tightest
        ("dano ADJ (moral OU material)", "'dano' <1> ( 'moral' | 'material' )"),
        ('"dano moral" ADJ in', "'dano moral' <1> 'in'"),
        ("a ADJ b ADJ c", "( 'a' <1> 'b' ) <1> 'c'"),
        ("fornec* ADJ solidári*", "( 'fornec':* | 'forne' ) <1> ( 'solidári':* | 'solid' | 'solidá' | 'solidár' )"),
        ("dano MESMO moral", "'dano' & 'moral'"),  # the passage is the unit: MESMO is E
        ("dano COM moral", "'dano' & 'moral'"),
        (f"dano PROX{MAX_DISTANCE + 1} moral", "'dano' & 'moral'"),
        ("responsabilidade ADJ2 solidária -arbitragem", "( 'responsabilidade' <1> 'solidária' | "
         "'responsabilidade' <2> 'solidária' ) & !'arbitragem'"),
    ],
)  # fmt: skip
def test_adj_and_prox_are_distances_between_positions(query: str, required: str) -> None:
    parsed = parse_query(query)
    assert parsed.required == required
    assert parsed.text and "ADJ" not in parsed.text and "PROX" not in parsed.text and "MESMO" not in parsed.text


def test_proximity_words_in_lower_case_or_in_an_all_capitals_query_are_words() -> None:
    assert parse_query("dano adj moral") == ParsedQuery(text="dano adj moral")
    assert parse_query("DANO ADJ MORAL") == ParsedQuery(text="DANO ADJ MORAL")  # an ementa pasted in capitals
    assert parse_query("ele mesmo com isso") == ParsedQuery(text="ele mesmo com isso")
    assert parse_query("ADJACENTE PROXIMO dano").required is None


def test_fields_restrict_beside_the_words() -> None:
    parsed = parse_query('relator:"Luis Salomão" orgao:"Quarta Turma" dano ADJ moral')
    assert parsed.text == "dano moral"  # the metadata are conditions, not what is ranked
    assert parsed.required == "'dano' <1> 'moral'"
    assert parsed.relator == "( 'Luis' & 'Salomão' )"
    assert parsed.judging_body == "( 'Quarta' & 'Turma' )"
    assert parsed.court is None and parsed.ementa is None
    assert parse_query("Relatora:Andrighi franquia").relator == "'Andrighi'"
    assert parse_query("órgão:Turma franquia").judging_body == "'Turma'"
    assert parse_query("relator:Salom* franquia").relator == "'Salom':*"


def test_alternatives_of_one_field_and_repeated_fields() -> None:
    parsed = parse_query("relator:Andrighi OU relator:Bellizze arbitragem relator:Min*")
    assert parsed.relator == "( 'Andrighi' | 'Bellizze' ) & 'Min':*"
    assert parsed.required == "'arbitragem'"
    courts = parse_query("tribunal:(STJ OU TJRJ) tribunal:stj arbitragem").court
    assert courts == [f"stj{ALTERNATIVES}tjrj", "stj"]


def test_court_and_law_fields_read_as_the_filters_do() -> None:
    assert parse_query("tribunal:STJ dano").court == ["stj"]
    assert parse_query("lei:8.078/90 dano").cited_law == ["CDC"]
    assert parse_query('lei:"Lei 8.078/90, art. 14" dano').cited_law == ["CDC, art. 14"]
    assert parse_query("lei:(9.307/96 OU CDC) dano").cited_law == [f"Lei 9.307/1996{ALTERNATIVES}CDC"]


def test_a_class_abbreviation_also_finds_its_full_name() -> None:
    assert parse_query("classe:REsp dano").procedural_class == "( 'REsp' | ( 'recurso' & 'especial' ) )"
    assert parse_query('classe:"Agravo de Instrumento" dano').procedural_class == (
        "( 'Agravo' & 'de' & 'Instrumento' )"
    )


def test_ementa_is_a_requirement_on_the_ementa_and_is_ranked() -> None:
    parsed = parse_query("ementa:(cláusula ADJ2 patológica) franquia")
    assert parsed.ementa == "'cláusula' <1> 'patológica' | 'cláusula' <2> 'patológica'"
    assert parsed.required == "'franquia'"
    assert parsed.text == "franquia cláusula patológica"
    only = parse_query('ementa:"contrato de adesão"')
    assert (only.required, only.ementa, only.phrases) == (None, "'contrato de adesão'", ["contrato de adesão"])


def test_a_query_of_metadata_only_ranks_their_values() -> None:
    parsed = parse_query("relator:Andrighi tribunal:STJ")
    assert (parsed.text, parsed.required, parsed.relator, parsed.court) == ("Andrighi STJ", None, "'Andrighi'", ["stj"])


def test_a_colon_that_names_no_field_or_is_followed_by_a_space_is_text() -> None:
    assert parse_query("RELATOR: MINISTRO LUIS FELIPE SALOMÃO") == ParsedQuery(
        text="RELATOR: MINISTRO LUIS FELIPE SALOMÃO"
    )  # a header pasted as printed
    assert parse_query("Ementa: dano moral") == ParsedQuery(text="Ementa: dano moral")
    assert parse_query("https://stj.jus.br processo:123") == ParsedQuery(text="https://stj.jus.br processo:123")


OPERATOR_PIECES = [
    "dano", "moral", "E", "OU", "NÃO", "-", '"', "(", ")", "*", "ADJ", "ADJ2", "PROX", "PROX3", "PROX99", "ADJ0",
    "MESMO", "COM", "ementa:", "relator:", "orgao:", "classe:", "tribunal:", "lei:", "REsp", "STJ", "8.078/90",
    "Salomão", ":", "'", "\\", "<->", "|", "&", "!", " ", " ", " ",
]  # fmt: skip


@given(st.lists(st.sampled_from(OPERATOR_PIECES), max_size=30))
def test_any_mix_of_the_operators_parses_without_error(pieces: list[str]) -> None:
    query = "".join(pieces)
    parsed = parse_query(query)
    asked = (parsed.required, parsed.ementa, parsed.relator, parsed.judging_body, parsed.procedural_class)
    if parsed == ParsedQuery(text=query):
        return
    assert parsed.text.strip()
    assert any(value is not None for value in asked) or parsed.court or parsed.cited_law
    for value in asked:
        if value is not None:
            outside = QUOTED_OPERAND.sub("", value)
            assert set(outside) <= set(" &|!():*<>0123456789"), outside


def test_column_clause_takes_only_a_column_and_a_bind_parameter() -> None:
    assert column_clause("c.relator", ":field_relator") == (
        "(:field_relator::text IS NULL OR numnode(to_tsquery('public.simple_unaccent', :field_relator::text)) = 0"
        " OR to_tsvector('public.simple_unaccent', coalesce(c.relator, '')) @@"
        " to_tsquery('public.simple_unaccent', :field_relator::text))"
    )
    for column, parameter in [("c.relator; --", "$1"), ("relator", "$1"), ("c.relator", "x"), ("c.relator", "$1)")]:
        with pytest.raises(ValueError):
            column_clause(column, parameter)


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


EXCESSO = "Configurado o excesso de prazo na formação da culpa, a prisão preventiva deve ser relaxada."
PATOLOGICA = "Reconhecimento prima facie de cláusula compromissória “patológica” pelo Poder Judiciário."


@pytest.mark.parametrize(
    ("query", "passage", "expected"),
    [
        # ADJn: the second word 1 to n positions after the first; a stop word between counts ("de").
        ("excesso ADJ prazo", EXCESSO, False),
        ("excesso ADJ2 prazo", EXCESSO, True),
        ("excesso ADJ5 prazo", EXCESSO, True),
        ("prazo ADJ2 excesso", EXCESSO, False),  # in this order only
        ("prazo PROX2 excesso", EXCESSO, True),  # PROX: either order
        ("prazo PROX excesso", EXCESSO, False),
        ("excesso ADJ5 culpa", EXCESSO, False),  # excesso de prazo na formação da culpa: six positions on
        ("excesso ADJ6 culpa", EXCESSO, True),
        ("culpa PROX6 excesso", EXCESSO, True),
        ("culpa PROX5 excesso", EXCESSO, False),
        # Punctuation and quotes are no words; accents, case and plurals as the index stems them.
        ("compromissória ADJ patológica", PATOLOGICA, True),
        ("COMPROMISSORIAS ADJ patologicas", PATOLOGICA, True),
        ("patológica ADJ compromissória", PATOLOGICA, False),
        ("patológica PROX compromissória", PATOLOGICA, True),
        ('"cláusula compromissória" ADJ patológica', PATOLOGICA, True),
        ("compromiss* ADJ patológ*", PATOLOGICA, True),
        ("cláusula ADJ (arbitral OU compromissória)", PATOLOGICA, True),
        ("cláusula ADJ (arbitral OU penal)", PATOLOGICA, False),
        ("(excesso ADJ2 prazo) OU (cláusula ADJ compromissória)", EXCESSO, True),
        ("(excesso ADJ2 prazo) OU (cláusula ADJ compromissória)", PATOLOGICA, True),
        ("excesso ADJ2 prazo -preventiva", EXCESSO, False),
        ("excesso ADJ2 prazo MESMO preventiva", EXCESSO, True),
        ("excesso ADJ2 prazo COM arbitral", EXCESSO, False),
        (f"prisão PROX{MAX_DISTANCE + 1} excesso", EXCESSO, True),  # read as the same passage
        # A stop word as an operand: PostgreSQL drops it, the rest still asks.
        ("excesso ADJ de", EXCESSO, True),
        ("de ADJ o", EXCESSO, True),  # only stop words: nothing to require
    ],
)
async def test_proximity_as_the_portals_mean_it(pool: asyncpg.Pool, query: str, passage: str, expected: bool) -> None:
    assert await _passes(pool, passage, query) is expected


_COLUMN_PASSES = f"SELECT count(*) = 1 FROM (SELECT $1::text AS relator) c WHERE {column_clause('c.relator', '$2')}"


@pytest.mark.parametrize(
    ("query", "relator", "expected"),
    [
        ("relator:Salomão x", "LUIS FELIPE SALOMÃO", True),
        ("relator:salomao x", "Luis Felipe Salomão", True),
        ('relator:"Luis Salomão" x', "LUIS FELIPE SALOMÃO", True),  # a quoted value: its words, in any order
        ('relator:"Salomão Luis" x', "LUIS FELIPE SALOMÃO", True),
        ('relator:"Nancy Salomão" x', "LUIS FELIPE SALOMÃO", False),
        ("relator:Salom* x", "LUIS FELIPE SALOMÃO", True),
        ("relator:Salomões x", "LUIS FELIPE SALOMÃO", False),  # names are not stemmed
        ("relator:Andrighi OU relator:Salomão x", "LUIS FELIPE SALOMÃO", True),
        ("relator:Andrighi x", "LUIS FELIPE SALOMÃO", False),
        ("relator:Andrighi x", None, False),
        ('relator:"\'; DROP TABLE chunks; --" x', "LUIS FELIPE SALOMÃO", False),
    ],
)
async def test_a_metadata_field_matches_the_words_of_the_column(
    pool: asyncpg.Pool, query: str, relator: str | None, expected: bool
) -> None:
    assert await pool.fetchval(_COLUMN_PASSES, relator, parse_query(query).relator) is expected


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
        "arbitr*", "-x", "$1", "1=1", "A:B", "a'b", "ﬁ", "𝔸", "ADJ", "ADJ3", "PROX", "PROX12", "MESMO", "ementa:",
        "relator:", "classe:", "orgao:",
    ]  # fmt: skip
    rng = random.Random(7)
    queries = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 25))) for _ in range(1500)]
    queries += ["x" * 3000 + ' "' + "á" * 1500 + '" -y']  # words too long to index
    parsed = [parse_query(q) for q in queries]
    required = [r for p in parsed for r in (p.required, p.ementa) if r is not None]
    assert len(required) > 100 and any("<1>" in r for r in required)
    columns = [r for p in parsed for r in (p.relator, p.procedural_class, p.judging_body) if r is not None]
    assert (
        columns
        and await pool.fetchval(
            "SELECT count(*) FROM unnest($1::text[]) r"
            " WHERE to_tsvector('public.simple_unaccent', 'dano moral') @@ to_tsquery('public.simple_unaccent', r)",
            columns,
        )
        >= 0
    )
    passed = await pool.fetchval(
        "SELECT count(*) FROM unnest($2::text[]) r WHERE numnode(to_tsquery('public.pt_unaccent', r)) = 0"
        " OR to_tsvector('public.pt_unaccent', $1::text) @@ to_tsquery('public.pt_unaccent', r)",
        ARBITRAGEM,
        required,
    )
    assert 0 <= passed <= len(required)


@pytest.mark.parametrize("query", ['"responsabilidade solidária" -arbitragem', "excesso PROX3 prazo -arbitragem"])
async def test_the_requirement_is_served_by_the_full_text_index(pool: asyncpg.Pool, query: str) -> None:
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL enable_seqscan = off")
        await conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")
        plan = await conn.fetch(
            f"EXPLAIN SELECT c.id FROM chunks c WHERE {required_clause('$1')}", parse_query(query).required
        )
    assert "chunks_tsv" in "\n".join(row[0] for row in plan)
