"""The query syntax lawyers type on the courts' search pages (STJ, STF, TJSP), read into a full-text requirement.

    "frase exata"          the words in this order, side by side (curly quotes “ ” as Word types them too)
    -termo, NÃO termo      no result holds it (NAO too; also -"frase", -(grupo))
    termo OU termo         either one
    termo E termo          both; juxtaposed words are joined by E as well, as on the courts' pages
    ( ... )                grouping
    arbitr*                any word beginning so (at least 3 letters before the *)
    termo ADJn termo       the second within n words after the first (ADJ alone: n = 1, side by side), as on
                           STJ's and STF's pages: "excesso ADJ2 prazo" finds "excesso de prazo"
    termo PROXn termo      within n words of each other, in either order (PROX alone: n = 1)
    termo MESMO termo      both in the same passage; COM (STJ: the same paragraph) too. The passage (a chunk of
                           the document, about a paragraph or a few) is the unit every requirement is checked on,
                           so E already asks for the same passage and MESMO and COM read as E
    campo:valor            a field: ementa:(...) in the ementa's own passage; relator:, orgao:, classe:,
                           tribunal:, lei: on the metadata (FIELDS); campo:"várias palavras", campo:(a OU b)

Only capitals are operators (E, OU, NÃO/NAO, ADJ, PROX, MESMO, COM), as on STJ's page: "dano moral e material"
is Portuguese, not logic. A query written all in capitals (an ementa pasted as it is printed) has no word
operators at all, since its "E" cannot be told from the conjunction; quotes, "-", "*" and fields still work
there. OU binds tighter than E, as Google reads it ("dano moral OU material" = dano E (moral OU material)),
and ADJ and PROX tighter than both ("dano ADJ moral OU material" = (dano ADJ moral) OU material); parentheses
say otherwise where meant. Distances count every word, stop words included (PostgreSQL keeps their positions):
"excesso ADJ prazo" does not find "excesso de prazo", "excesso ADJ2 prazo" does. An operand of ADJ or PROX is
a word, a truncated word, a phrase or a group of alternatives (OU); a distance above MAX_DISTANCE reads as
MESMO (both in the same passage: an OR of a hundred distances per pair is no longer worth its cost).

A field (campo:valor, the value right after the colon, as "relator: MINISTRO" pasted from a header is no
field) is a condition beside the words, only at the query's top level (ANDed with the rest, or OU between
fields of one name): ementa: requires its words in the ementa's own passage (the chunker's ementa chunk)
and ranks on them; the metadata fields (relator, orgao, classe, tribunal, lei) restrict, unranked (a
query of such fields only ranks on their values, having nothing else).
A field anywhere else (inside OU with words, under NÃO or ADJ) is read as plain text, as any syntax error.

A query without any operator is an ordinary one and keeps its behaviour exactly (text unchanged, no
requirement): ranking alone decides. A query with operators is a boolean one: every result must satisfy
`required`, and its positive words (`text`) are what is embedded and ranked. Anything this grammar cannot
read (an unclosed quote, a lone "-", an "OU" at the end, unbalanced parentheses, nesting deeper than
MAX_DEPTH) is read as plain text, never as an error; so is a query that only excludes ("-arbitragem"):
with nothing to look for there is nothing to rank, and results about the excluded word tell the lawyer
at once that the query was read as plain text.

`required` is the input of `to_tsquery(<the chunk's language's configuration>, required)`, never a tsquery
to cast: every operand is a quoted string of the words as typed, which PostgreSQL itself splits, unaccents
and stems as the index (`chunks.tsv`) was, so "solidaria", "solidária" and "solidárias" meet, a quoted
phrase becomes <-> (with <2> over a stop word, as phraseto_tsquery does), and no input can make it a
syntax error.
websearch_to_tsquery was the other way: it has no parentheses and no truncation, and its "or" binds
looser than the words around it.
"""

import re
import unicodedata
from dataclasses import dataclass, field

from precedente.shared.legal.citations import CLASSES, FULL_CLASSES, extract_citations
from precedente.shared.legal.codes import normalize_court
from precedente.shared.legal.language import SIMPLE_CONFIG, TS_CONFIGS
from precedente.shared.legal.text import fold

QUOTES = frozenset('"“”„')
AND_WORDS = frozenset({"E"})
OR_WORDS = frozenset({"OU"})
NOT_WORDS = frozenset({"NÃO", "NAO"})
SAME_WORDS = frozenset({"MESMO", "COM"})  # the same passage: our unit, so read as E
NEAR_WORD = re.compile(r"(ADJ|PROX)([1-9][0-9]{0,3})?")
MAX_DISTANCE = 50  # words: above it, ADJn and PROXn read as MESMO
MAX_REQUIRED = 20_000  # characters of one to_tsquery input: chained PROXn multiply their arms, beyond is plain text
# The fields a lawyer types (accents and case folded) and what each is: "ementa" the ementa's passage, the others
# SearchFilters' columns (relator, judging_body, procedural_class, court, cited_law).
FIELDS = {
    "ementa": "ementa",
    "relator": "relator",
    "relatora": "relator",
    "orgao": "judging_body",
    "turma": "judging_body",
    "classe": "procedural_class",
    "tribunal": "court",
    "lei": "cited_law",
    "legislacao": "cited_law",
}
_FIELD = re.compile(r"([^\W\d_]+):(.*)", re.DOTALL)
MAX_DEPTH = 32  # parentheses and negations nested deeper than this are plain text (and no stack to exhaust)
PREFIX_MIN = 3  # letters a truncated word keeps at least: "a*" would match half the index
# The index holds stems, which can be shorter than the typed root ("responsabili*" against 'respons', the
# stem of "responsabilidade"; "solidari*" against 'solid'): a truncated word also matches, as whole
# lexemes, its own prefixes down to PREFIX_BACK letters fewer (PREFIX_FLOOR at least), which PostgreSQL
# stems in turn. On 6,000 truncations of the 1,500 commonest words (7 letters or more) of the sample
# decisions this finds 98.7% of the words, against 89.5% for the root alone, and matches 0.038% of the
# other words, against 0.029%. What it lets in is a short stem such a prefix shares with another word
# ("contrat*" reaches 'contr', the stem of "contra"): a requirement that lets in a little more only
# weakens the filter, ranking still orders by the root, while a missed word would hide a result.
PREFIX_BACK = 5
PREFIX_FLOOR = 5

_WORD_CHAR = re.compile(r"\w")
_LETTERS = re.compile(r"[^\W_]+")
_PARAMETER = re.compile(r"\$[1-9][0-9]*|:[a-z_][a-z0-9_]*")  # positional ($14) or named (:required)


@dataclass(frozen=True)
class ParsedQuery:
    """What the search does with one query: `text` is embedded and ranked (BM25 and dense); `required`,
    when not None, is the `to_tsquery(<configuration>, ...)` input every result must match (see
    required_clause); `phrases` and `excluded` are the quoted phrases and the excluded words/phrases as
    typed, without their quotes and operators (for highlighting and for saying what was excluded).

    The fields (each None when not asked for): `ementa`, a to_tsquery input as `required` that the passage must
    match and be the ementa's; `relator`, `judging_body`, `procedural_class`, to_tsquery inputs in
    SIMPLE_CONFIG that the column's words must match ("relator:Salomão" finds "LUIS FELIPE SALOMÃO");
    `court` and `cited_law`, conditions that must all hold, each a list of alternatives joined by ALTERNATIVES
    (court codes as normalize_court writes them; citation prefixes as SearchFilters.cited_law)."""

    text: str
    required: str | None = None
    phrases: list[str] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)
    ementa: str | None = None
    relator: str | None = None
    judging_body: str | None = None
    procedural_class: str | None = None
    court: list[str] | None = None
    cited_law: list[str] | None = None


ALTERNATIVES = "\x1f"  # joins a condition's alternatives: whitespace to Python, so never inside a typed value


class _SyntaxError(Exception):
    """The query is not in the syntax: it is read as plain text."""


@dataclass(frozen=True)
class _Token:
    kind: str  # "word", "prefix", "phrase", "and", "or", "not", "near", "field", "(", ")"
    text: str = ""  # a word or phrase as typed; a field's name (FIELDS' value)
    distance: int = 0  # "near": ADJn's or PROXn's n
    ordered: bool = False  # "near": ADJ (in this order) rather than PROX


@dataclass(frozen=True)
class _Term:
    text: str  # a word, or a phrase's words, as typed
    phrase: bool = False
    prefix: bool = False


@dataclass(frozen=True)
class _Not:
    operand: "_Node"


@dataclass(frozen=True)
class _Op:
    kind: str  # "and" or "or"
    operands: tuple["_Node", ...]


@dataclass(frozen=True)
class _Near:
    left: "_Node"
    right: "_Node"
    distance: int
    ordered: bool


@dataclass(frozen=True)
class _Field:
    name: str  # FIELDS' value
    operand: "_Node"


_Node = _Term | _Not | _Op | _Near | _Field


def _is_space(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch) in ("Cc", "Zs")


def _tokens(query: str) -> list[_Token]:
    """The query's tokens; raises _SyntaxError on an unclosed quote or a "-" that excludes nothing."""
    word_operators = any(ch.islower() for ch in query)  # an all-capitals query has no word operators
    tokens: list[_Token] = []
    i, n, dash = 0, len(query), -2
    while i < n:
        ch = query[i]
        if _is_space(ch):
            i += 1
        elif ch in "()":
            tokens.append(_Token(ch))
            i += 1
        elif ch in QUOTES:
            end = next((j for j in range(i + 1, n) if query[j] in QUOTES), -1)
            if end < 0:
                raise _SyntaxError("unclosed quote")
            phrase = " ".join(query[i + 1 : end].split())
            if not _WORD_CHAR.search(phrase):
                raise _SyntaxError("empty phrase")
            tokens.append(_Token("phrase", phrase))
            i = end + 1
        elif ch == "-":  # only ever at a word's start: "ex-empregado" and "8.078-90" are words
            if i + 1 >= n or _is_space(query[i + 1]) or query[i + 1] == ")":
                raise _SyntaxError("a lone -")
            tokens.append(_Token("not"))
            dash = i
            i += 1
        else:
            j = i
            while j < n and not _is_space(query[j]) and query[j] not in "()" and query[j] not in QUOTES:
                j += 1
            word = query[i:j]
            i = j
            operator = unicodedata.normalize("NFC", word)
            near = NEAR_WORD.fullmatch(operator) if word_operators else None
            named = _FIELD.fullmatch(operator)
            name = FIELDS.get(fold(named.group(1)).casefold()) if named else None
            if word_operators and operator in AND_WORDS | SAME_WORDS:
                tokens.append(_Token("and"))
            elif word_operators and operator in OR_WORDS:
                tokens.append(_Token("or"))
            elif word_operators and operator in NOT_WORDS:
                tokens.append(_Token("not"))
            elif near:
                distance = int(near.group(2) or 1)
                tokens.append(_Token("near", distance=distance, ordered=near.group(1) == "ADJ"))
            elif named and name and (named.group(2) or (i < n and (query[i] in QUOTES or query[i] == "("))):
                tokens.append(_Token("field", name))  # "relator:Salomão", 'ementa:"..."', "lei:(...)"
                if named.group(2):
                    value = _word(named.group(2))
                    if value is None:
                        raise _SyntaxError("a field with no word")  # "relator:§"
                    tokens.append(value)
            elif not _WORD_CHAR.search(word):
                if dash == i - len(word) - 1:
                    raise _SyntaxError("a - before no word")  # "-§", "-*"
                continue  # "§", "&", "–": nothing PostgreSQL would index, so nothing to require
            else:
                tokens.append(_word(word))  # type: ignore[arg-type]  # it has a word character
    return tokens


def _word(word: str) -> _Token | None:
    """A word's token (a truncated one when it ends in * after PREFIX_MIN letters); None if it holds no word."""
    if not _WORD_CHAR.search(word):
        return None
    root = unicodedata.normalize("NFC", word.rstrip("*"))
    if root != word and _LETTERS.fullmatch(root) and len(root) >= PREFIX_MIN:
        return _Token("prefix", root)
    return _Token("word", word)


class _Parser:
    """Recursive descent over: and := or ([E | MESMO | COM] or)* ; or := near (OU near)* ;
    near := unary ((ADJn | PROXn) unary)* ; unary := (NÃO | - | campo:) unary | word | prefix | "phrase" | ( and )."""

    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.at = 0

    def peek(self) -> str | None:
        return self.tokens[self.at].kind if self.at < len(self.tokens) else None

    def take(self) -> _Token:
        if self.at >= len(self.tokens):
            raise _SyntaxError("the query ends where an operand is due")
        token = self.tokens[self.at]
        self.at += 1
        return token

    def parse(self) -> _Node:
        node = self.conjunction(0)
        if self.peek() is not None:
            raise _SyntaxError("unbalanced parentheses")
        return node

    def conjunction(self, depth: int) -> _Node:
        operands = [self.disjunction(depth)]
        while self.peek() not in (None, ")"):
            if self.peek() == "and":
                self.take()
            operands.append(self.disjunction(depth))
        return operands[0] if len(operands) == 1 else _Op("and", tuple(operands))

    def disjunction(self, depth: int) -> _Node:
        operands = [self.proximity(depth)]
        while self.peek() == "or":
            self.take()
            operands.append(self.proximity(depth))
        return operands[0] if len(operands) == 1 else _Op("or", tuple(operands))

    def proximity(self, depth: int) -> _Node:
        node = self.unary(depth)
        chained = 0
        while self.peek() == "near":
            operator = self.take()
            chained += 1
            if depth + chained > MAX_DEPTH:
                raise _SyntaxError("nested too deep")  # each ADJ nests its left side once more
            node = _Near(node, self.unary(depth), operator.distance, operator.ordered)
        return node

    def unary(self, depth: int) -> _Node:
        if depth > MAX_DEPTH:
            raise _SyntaxError("nested too deep")
        token = self.take()
        if token.kind == "not":
            return _Not(self.unary(depth + 1))
        if token.kind == "field":
            return _Field(token.text, self.unary(depth + 1))
        if token.kind == "(":
            node = self.conjunction(depth + 1)
            if self.take().kind != ")":
                raise _SyntaxError("unbalanced parentheses")
            return node
        if token.kind in ("word", "prefix", "phrase"):
            return _Term(token.text, phrase=token.kind == "phrase", prefix=token.kind == "prefix")
        raise _SyntaxError(f"an operand is due, not {token.kind}")  # E, OU or ")" where a word should be


def _quote(text: str) -> str:
    """A to_tsquery operand: whatever it holds is text for PostgreSQL's parser, never tsquery syntax."""
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"


def _tsquery(node: _Node) -> str:
    if isinstance(node, _Term):
        if not node.prefix:
            return _quote(node.text)
        shorter = range(max(PREFIX_FLOOR, len(node.text) - PREFIX_BACK), len(node.text))
        return "( " + " | ".join([_quote(node.text) + ":*", *(_quote(node.text[:k]) for k in shorter)]) + " )"
    if isinstance(node, _Not):
        return "!" + _grouped(node.operand)
    if isinstance(node, _Near):
        return _near(node)
    if isinstance(node, _Field):
        raise _SyntaxError("a field inside an expression")  # only the query's top level holds fields
    return f" {'&' if node.kind == 'and' else '|'} ".join(_grouped(operand) for operand in node.operands)


def _grouped(node: _Node) -> str:
    """An operand of &, |, ! or <N>: ! binds tightest in tsquery, so only &, | and <N> need parentheses."""
    return "( " + _tsquery(node) + " )" if isinstance(node, _Op | _Near) else _tsquery(node)


def _positional(node: _Node) -> bool:
    """Whether `node` has a position to measure a distance from: a word, a phrase, a truncated word, a
    proximity, or alternatives (OU) of them; a negation, an E or a field has none."""
    if isinstance(node, _Term | _Near):
        return True
    return isinstance(node, _Op) and node.kind == "or" and all(_positional(operand) for operand in node.operands)


def _near(node: _Near) -> str:
    """ADJn: the right operand 1 to n positions after the left (<1> | ... | <n>); PROXn: that, or the left after
    the right. Positions are PostgreSQL's, stop words counted; above MAX_DISTANCE, both in the passage (E)."""
    if not (_positional(node.left) and _positional(node.right)):
        raise _SyntaxError("ADJ or PROX beside a negation, an E or a field")
    if node.distance > MAX_DISTANCE:
        return _tsquery(_Op("and", (node.left, node.right)))
    left, right = _grouped(node.left), _grouped(node.right)
    pairs = [(left, right)] if node.ordered else [(left, right), (right, left)]
    if len(pairs) * node.distance * (len(left) + len(right) + 8) > MAX_REQUIRED:
        raise _SyntaxError("a proximity too large to ask PostgreSQL")  # chained PROXn multiply their arms
    return " | ".join(f"{a} <{k}> {b}" for k in range(1, node.distance + 1) for a, b in pairs)


def _conjuncts(node: _Node) -> list[_Node]:
    """The query's top-level conjunction flattened (a parenthesised E inside an E is the same E)."""
    if isinstance(node, _Op) and node.kind == "and":
        return [found for operand in node.operands for found in _conjuncts(operand)]
    return [node]


def _fields(tree: _Node) -> tuple[list[_Node], dict[str, list[_Node]]]:
    """The words (conjuncts without a field) and each field's operands; fields of one name joined by OU are one
    field with alternatives ("relator:Salomão OU relator:Andrighi"). A field anywhere else raises at compiling."""
    words: list[_Node] = []
    fields: dict[str, list[_Node]] = {}
    for node in _conjuncts(tree):
        if isinstance(node, _Field):
            fields.setdefault(node.name, []).append(node.operand)
        elif (
            isinstance(node, _Op)
            and node.kind == "or"
            and all(isinstance(o, _Field) for o in node.operands)
            and len({o.name for o in node.operands if isinstance(o, _Field)}) == 1
        ):
            alternatives = tuple(o.operand for o in node.operands if isinstance(o, _Field))
            fields.setdefault(node.operands[0].name, []).append(_Op("or", alternatives))  # type: ignore[union-attr]
        else:
            words.append(node)
    return words, fields


def _conjunction(nodes: list[_Node]) -> _Node:
    return nodes[0] if len(nodes) == 1 else _Op("and", tuple(nodes))


def _column_query(node: _Node) -> str:
    """A metadata field's value as to_tsquery input in SIMPLE_CONFIG (case and accents folded, no stems): a
    quoted value's words in any order ("Luis Salomão" finds "LUIS FELIPE SALOMÃO"), E and OU between values."""
    if isinstance(node, _Term):
        if node.prefix:
            return _quote(node.text) + ":*"
        words = [_quote(word) for word in node.text.split()]
        return words[0] if len(words) == 1 else "( " + " & ".join(words) + " )"
    if isinstance(node, _Op):
        joined = f" {'&' if node.kind == 'and' else '|'} ".join(_column_query(o) for o in node.operands)
        return "( " + joined + " )"
    raise _SyntaxError("a negation or a proximity in a metadata field")


def _class_names(node: _Node) -> _Node:
    """classe:REsp as the annotator stores it, "Recurso Especial": an abbreviation also finds the full names it
    abbreviates (whose words any longer class holding them shares: "Agravo em Recurso Especial")."""
    if isinstance(node, _Op):
        return _Op(node.kind, tuple(_class_names(operand) for operand in node.operands))
    if isinstance(node, _Term) and not node.prefix and not node.phrase:
        code = CLASSES.get(fold(node.text).casefold())
        names = [name for name, abbreviation in FULL_CLASSES.items() if abbreviation == code]
        if code and names:
            return _Op("or", (node, *(_Term(name, phrase=True) for name in names)))
    return node


def _alternatives(node: _Node) -> list[str]:
    """A field's values that are codes (tribunal, lei): one value or OU between them, as typed."""
    if isinstance(node, _Term):
        return [node.text]
    if isinstance(node, _Op) and node.kind == "or":
        return [value for operand in node.operands for value in _alternatives(operand)]
    raise _SyntaxError("tribunal: and lei: take one value or alternatives (OU)")


def _cited_law(value: str) -> str:
    """A law as SearchFilters.cited_law reads it ("Lei 8.078/90, art. 14" -> "CDC, art. 14"); a bare number
    ("lei:9.307/96") as "Lei 9.307/96"."""
    return (extract_citations(value) or extract_citations("Lei " + value) or [value])[-1]


def _metadata(name: str, operands: list[_Node]) -> str | list[str]:
    if name == "court":
        return [ALTERNATIVES.join(normalize_court(v) or v for v in _alternatives(o)) for o in operands]
    if name == "cited_law":
        return [ALTERNATIVES.join(_cited_law(v) for v in _alternatives(o)) for o in operands]
    if name == "procedural_class":
        operands = [_class_names(operand) for operand in operands]
    return " & ".join(_column_query(o) for o in operands)


def _terms(node: _Node, positive: bool = True) -> list[tuple[_Term, bool]]:
    """Every word and phrase with whether it is looked for (True) or excluded (an odd count of negations)."""
    if isinstance(node, _Term):
        return [(node, positive)]
    if isinstance(node, _Not):
        return _terms(node.operand, not positive)
    if isinstance(node, _Near):
        return _terms(node.left, positive) + _terms(node.right, positive)
    if isinstance(node, _Field):
        return _terms(node.operand, positive)
    return [found for operand in node.operands for found in _terms(operand, positive)]


def _typed(term: _Term) -> str:
    return term.text + "*" if term.prefix else term.text


def parse_query(query: str) -> ParsedQuery:
    """The query read in the courts' syntax; an ordinary query, or one not in the syntax, as plain text."""
    plain = ParsedQuery(text=query)
    try:
        tokens = _tokens(query)
        if not any(t.kind not in ("word", "(", ")") for t in tokens):
            return plain  # no operator at all: today's behaviour, exactly
        words, fields = _fields(_Parser(tokens).parse())
        required = _tsquery(_conjunction(words)) if words else None
        ementa = _tsquery(_conjunction(fields["ementa"])) if "ementa" in fields else None
        metadata = {name: _metadata(name, operands) for name, operands in fields.items() if name != "ementa"}
        if len(required or "") > MAX_REQUIRED or len(ementa or "") > MAX_REQUIRED:
            raise _SyntaxError("too large to ask PostgreSQL")
    except _SyntaxError:
        return plain
    terms = [found for node in words + fields.get("ementa", []) for found in _terms(node)]
    wanted = [term for term, positive in terms if positive]
    if not wanted and not metadata:
        return plain  # only exclusions: nothing to look for
    values = [term for name, nodes in fields.items() if name != "ementa" for node in nodes for term, _ in _terms(node)]
    return ParsedQuery(
        text=" ".join(term.text for term in wanted or values),  # only metadata fields: their values are ranked
        required=required,
        phrases=[term.text for term in wanted if term.phrase],
        excluded=[_typed(term) for term, positive in terms if not positive],
        ementa=ementa,
        **metadata,  # type: ignore[arg-type]
    )


def required_clause(parameter: str) -> str:
    """The SQL condition that a chunk `c` satisfies the requirement bound to `parameter` ("$14"), read in the
    chunk's own language (c.language, migration 0014: an English chunk's "directives" meets a quoted
    "directive", and "-arbitration" excludes it): true for every chunk when it is NULL (an ordinary query)
    or when PostgreSQL finds no lexeme in it under that language (only stop words, as in "a OU de"), which
    would otherwise match nothing. to_tsquery is immutable, so with the value bound the planner folds the
    tests, and the GIN index on tsv serves each language's arm (a BitmapOr of them)."""
    if not _PARAMETER.fullmatch(parameter):
        raise ValueError(f"not a bind parameter: {parameter!r}")

    def matches(config: str) -> str:
        query = f"to_tsquery('{config}', {parameter}::text)"
        return f"(numnode({query}) = 0 OR c.tsv @@ {query})"

    arms = [f"(c.language = '{language}' AND {matches(config)})" for language, config in TS_CONFIGS.items()]
    listed = ", ".join(f"'{language}'" for language in TS_CONFIGS)
    arms.append(f"(c.language NOT IN ({listed}) AND {matches(SIMPLE_CONFIG)})")
    return f"({parameter}::text IS NULL OR {' OR '.join(arms)})"


def column_clause(column: str, parameter: str) -> str:
    """The SQL condition that `column` (a metadata column of `c` or a joined row) holds the words of the field
    query bound to `parameter` (ParsedQuery.relator and its siblings), read in SIMPLE_CONFIG: case and accents
    folded, no stems, so "relator:Salomão" finds "LUIS FELIPE SALOMÃO" and not a stem of another name; true
    when the parameter is NULL or holds no word PostgreSQL keeps."""
    if not _PARAMETER.fullmatch(parameter):
        raise ValueError(f"not a bind parameter: {parameter!r}")
    if not re.fullmatch(r"[a-z_]+\.[a-z_]+", column):
        raise ValueError(f"not a column: {column!r}")
    query = f"to_tsquery('{SIMPLE_CONFIG}', {parameter}::text)"
    words = f"to_tsvector('{SIMPLE_CONFIG}', coalesce({column}, ''))"
    return f"({parameter}::text IS NULL OR numnode({query}) = 0 OR {words} @@ {query})"
