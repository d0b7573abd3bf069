"""The query syntax lawyers type on the courts' search pages (STJ, STF, TJSP), read into a full-text requirement.

    "frase exata"          the words in this order, side by side (curly quotes “ ” as Word types them too)
    -termo, NÃO termo      no result holds it (NAO too; also -"frase", -(grupo))
    termo OU termo         either one
    termo E termo          both; juxtaposed words are joined by E as well, as on the courts' pages
    ( ... )                grouping
    arbitr*                any word beginning so (at least 3 letters before the *)

Only capitals are operators (E, OU, NÃO/NAO), as on STJ's page: "dano moral e material" is Portuguese,
not logic. A query written all in capitals (an ementa pasted as it is printed) has no word operators at
all, since its "E" cannot be told from the conjunction; quotes, "-" and "*" still work there. OU binds
tighter than E, as Google reads it ("dano moral OU material" = dano E (moral OU material)); parentheses
say otherwise where meant.

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

from shared.legal.language import SIMPLE_CONFIG, TS_CONFIGS

QUOTES = frozenset('"“”„')
AND_WORDS = frozenset({"E"})
OR_WORDS = frozenset({"OU"})
NOT_WORDS = frozenset({"NÃO", "NAO"})
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
    typed, without their quotes and operators (for highlighting and for saying what was excluded)."""

    text: str
    required: str | None = None
    phrases: list[str] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)


class _SyntaxError(Exception):
    """The query is not in the syntax: it is read as plain text."""


@dataclass(frozen=True)
class _Token:
    kind: str  # "word", "prefix", "phrase", "and", "or", "not", "(", ")"
    text: str = ""


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


_Node = _Term | _Not | _Op


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
            if word_operators and operator in AND_WORDS:
                tokens.append(_Token("and"))
            elif word_operators and operator in OR_WORDS:
                tokens.append(_Token("or"))
            elif word_operators and operator in NOT_WORDS:
                tokens.append(_Token("not"))
            elif not _WORD_CHAR.search(word):
                if dash == i - len(word) - 1:
                    raise _SyntaxError("a - before no word")  # "-§", "-*"
                continue  # "§", "&", "–": nothing PostgreSQL would index, so nothing to require
            else:
                root = unicodedata.normalize("NFC", word.rstrip("*"))
                if root != word and _LETTERS.fullmatch(root) and len(root) >= PREFIX_MIN:
                    tokens.append(_Token("prefix", root))
                else:
                    tokens.append(_Token("word", word))
    return tokens


class _Parser:
    """Recursive descent over: and := or ([E] or)* ; or := unary (OU unary)* ;
    unary := (NÃO | -) unary | word | prefix | "phrase" | ( and )."""

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
        operands = [self.unary(depth)]
        while self.peek() == "or":
            self.take()
            operands.append(self.unary(depth))
        return operands[0] if len(operands) == 1 else _Op("or", tuple(operands))

    def unary(self, depth: int) -> _Node:
        if depth > MAX_DEPTH:
            raise _SyntaxError("nested too deep")
        token = self.take()
        if token.kind == "not":
            return _Not(self.unary(depth + 1))
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
    return f" {'&' if node.kind == 'and' else '|'} ".join(_grouped(operand) for operand in node.operands)


def _grouped(node: _Node) -> str:
    """An operand of &, | or !: ! binds tightest in tsquery, so only & and | need parentheses."""
    return "( " + _tsquery(node) + " )" if isinstance(node, _Op) else _tsquery(node)


def _terms(node: _Node, positive: bool = True) -> list[tuple[_Term, bool]]:
    """Every word and phrase with whether it is looked for (True) or excluded (an odd count of negations)."""
    if isinstance(node, _Term):
        return [(node, positive)]
    if isinstance(node, _Not):
        return _terms(node.operand, not positive)
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
        tree = _Parser(tokens).parse()
    except _SyntaxError:
        return plain
    terms = _terms(tree)
    wanted = [term for term, positive in terms if positive]
    if not wanted:
        return plain  # only exclusions: nothing to look for
    return ParsedQuery(
        text=" ".join(term.text for term in wanted),
        required=_tsquery(tree),
        phrases=[term.text for term in wanted if term.phrase],
        excluded=[_typed(term) for term, positive in terms if not positive],
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
