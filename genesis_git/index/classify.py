"""Per-path metadata: artifact type, owner, component, staleness.

What each field means: docs/explanation/sessions-and-cache.md, "Metadata".

Globs follow git's wildmatch rules as GitHub reads them in CODEOWNERS (matched with
``pathspec``): a pattern without a slash (or with one only at its end) matches at any
depth; one with a slash elsewhere, or a leading ``/``, is anchored at the root; ``*``
stays within one folder and ``**`` crosses folders; ``[ch]`` is a class; a pattern
that matches a folder matches everything in it, except that a last segment ``*``
(``docs/*``) matches only the folder's direct children.

Artifact type, first match wins:

1. ``classify.rules`` from config (glob -> type);
2. path rules: SQL, migrations and ``docs/db`` are DB; OpenAPI/Swagger,
   ``.proto``, route files and ``docs/api`` are API; ``docs/req*`` and
   requirement/PRD folders are REQ; ``docs/arch*``, ADRs and design docs are
   ARCH;
3. the content hint the chunker found (DDL in any file is DB, a route
   decorator is API, an ORM model is DB);
4. templates, stylesheets and front-end components are UI;
5. source code by extension is CODE; everything else is OTHER.

``staleness_score = 1 - 0.5 ** (age_days / half_life_days)``: 0 for a file
changed just now, 0.5 at the half-life (180 days by default), approaching 1
for old files.  A dirty file's age comes from its mtime.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

from genesis_git.index.chunk import CODE_EXTENSIONS
from genesis_git.kernel.vocabulary import ARTIFACT_TYPES

_PATH_RULES: tuple[tuple[str, str], ...] = (
    ("**/*.sql", "DB"), ("**/migrations/**", "DB"), ("**/migration/**", "DB"),
    ("**/alembic/**", "DB"), ("**/db/migrate/**", "DB"), ("docs/db/**", "DB"),
    ("**/*.prisma", "DB"),
    ("**/openapi*.*", "API"), ("**/swagger*.*", "API"), ("**/*.proto", "API"),
    ("**/*.graphql", "API"), ("**/routes/**", "API"), ("**/routes.*", "API"),
    ("**/routers/**", "API"), ("**/urls.py", "API"), ("docs/api/**", "API"),
    ("docs/req*/**", "REQ"), ("docs/req*", "REQ"), ("**/requirements/**/*.md", "REQ"),
    ("**/prd/**", "REQ"), ("**/stories/**", "REQ"), ("**/*需求*", "REQ"),
    ("docs/arch*/**", "ARCH"), ("docs/arch*", "ARCH"), ("**/adr/**", "ARCH"),
    ("**/adrs/**", "ARCH"), ("**/decisions/**", "ARCH"), ("**/ARCHITECTURE*", "ARCH"),
    ("docs/design/**", "ARCH"),
)

_UI_EXTENSIONS = {".html", ".htm", ".jinja", ".jinja2", ".j2", ".vue", ".svelte", ".jsx", ".tsx",
                  ".css", ".scss", ".sass", ".less", ".hbs", ".mustache", ".ejs", ".erb"}
_UI_PATHS = ("**/templates/**", "**/components/**", "**/ui/**", "**/pages/**", "**/views/**/*.html")

_DDL_VERB = re.compile(r"\b(?:create|alter|drop)\s+\Z")  # just before "table", lower-cased
_ROUTE = re.compile(r"@(app|router|bp|blueprint|api)\.(get|post|put|patch|delete|route)\b|"
                    r"\bAPIRouter\(|\bBlueprint\(|\bapp\.(get|post|put|delete)\(['\"]/")
_ORM = re.compile(r"__tablename__|\bmodels\.Model\b|\bdeclarative_base\(|\bDeclarativeBase\b|"
                  r"\bmapped_column\(|@Entity\b|@Table\(")
_OPENAPI = re.compile(r"^\s*[\"']?(openapi|swagger)[\"']?\s*:", re.MULTILINE)


_ROUTE_HINTS = ("@app.", "@router.", "@bp.", "@blueprint.", "@api.", "APIRouter(", "Blueprint(",
                "app.get(", "app.post(", "app.put(", "app.delete(")
_ORM_HINTS = ("__tablename__", "models.Model", "declarative_base(", "DeclarativeBase",
              "mapped_column(", "@Entity", "@Table(")


def content_hint(path: str, text: str) -> str | None:
    """The artifact type that the content alone shows, if any (cached per blob).

    Cheap substring tests run first; a regular expression confirms them.
    """
    head = text[:20000]
    start = head[:2000]
    if ("openapi" in start or "swagger" in start) and _OPENAPI.search(start):
        return "API"
    low = head.lower()
    if "table" in low and _has_ddl(low):
        return "DB"
    if any(h in head for h in _ROUTE_HINTS) and _ROUTE.search(head):
        return "API"
    if any(h in head for h in _ORM_HINTS) and _ORM.search(head):
        return "DB"
    return None


def _has_ddl(low: str) -> bool:
    """``CREATE|ALTER|DROP TABLE`` in lower-cased text; looks only around each "table"."""
    i = low.find("table")
    while i != -1:
        after = low[i + 5:i + 6]
        if not (after.isalnum() or after == "_") and _DDL_VERB.search(low[max(0, i - 40):i]):
            return True
        i = low.find("table", i + 5)
    return False


@lru_cache(maxsize=4096)
def _glob_re(pattern: str) -> tuple[re.Pattern[str] | None, bool]:
    """``pattern`` compiled by ``pathspec`` (``None``: it matches nothing, a blank line or
    a negation standing alone), and whether only a match of the whole path counts (a
    last segment ``*`` names a folder's direct children, not what lies deeper)."""
    import warnings

    import pathspec  # imported on the first glob: search and the hooks rarely need one

    with warnings.catch_warnings():
        # pathspec 1.x deprecates the name "gitwildmatch" for "gitignore", whose patterns
        # compile differently; the wildmatch pattern is the one 0.12 and 1.x share
        warnings.simplefilter("ignore", DeprecationWarning)
        compiled = pathspec.PathSpec.from_lines("gitwildmatch", [pattern]).patterns
    rule = compiled[0] if compiled else None
    regex = getattr(rule, "regex", None)
    if rule is None or not rule.include or regex is None:
        return None, False
    return regex, pattern.rstrip().endswith("/*")


def glob_match(path: str, pattern: str) -> bool:
    """Whether the repository path ``path`` matches the glob ``pattern`` (see the module's
    docstring for the rules)."""
    regex, whole = _glob_re(pattern)
    if regex is None:
        return False
    m = regex.match(path)
    # pathspec names the slash after a matched folder ``ps_d``: set, the path lies inside it
    return m is not None and (not whole or m.groupdict().get("ps_d") is None)


def any_glob(path: str, patterns: Iterable[str]) -> bool:
    return any(glob_match(path, p) for p in patterns)


def _ext(path: str) -> str:
    base = path.rsplit("/", 1)[-1].lower()
    dot = base.rfind(".")
    return base[dot:] if dot > 0 else ""


def artifact_type(path: str, hint: str | None, rules: Mapping[str, str] | None = None) -> str:
    for pattern, kind in (rules or {}).items():
        if glob_match(path, pattern) and kind.upper() in ARTIFACT_TYPES:
            return kind.upper()
    ext = _ext(path)
    for pattern, kind in _PATH_RULES:
        if glob_match(path, pattern):
            if kind == "REQ" and ext in CODE_EXTENSIONS:
                continue
            return kind
    if hint and not _is_test(path):
        return hint
    if ext in _UI_EXTENSIONS or any_glob(path, _UI_PATHS):
        return "UI"
    if ext in CODE_EXTENSIONS:
        return "CODE"
    return "OTHER"


TEST_DIRS = frozenset({"test", "tests", "testing", "spec", "specs", "__tests__"})
_TEST_NAME = re.compile(r"(?:_tests?|\.test|\.spec|_spec|^tests?|Tests?)\.\w+$")


@lru_cache(maxsize=1 << 16)
def is_test_path(path: str) -> bool:
    """A test file, by its path alone: under a test folder (``tests/``, ``testing/``,
    ``spec/``, ``__tests__/``), or named ``test_*``, ``*_test.*``, ``*.spec.*``,
    ``*Test.java``, ``tests.py`` or ``conftest.py``.  What impact's prior, check's tests
    and the ordering of exact names and definitions call a test."""
    parts = path.split("/")
    base = parts[-1]
    return (any(p.lower() in TEST_DIRS for p in parts[:-1]) or base.lower().startswith("test_")
            or base == "conftest.py" or _TEST_NAME.search(base) is not None)


def _is_test(path: str) -> bool:
    """Tests hold DDL and routes as fixtures; their content never makes them DB or API.

    Narrower than :func:`is_test_path` on purpose: sessions keep the artifact type of an
    unchanged file, so widening this rule would leave older sessions disagreeing with new
    ones."""
    base = path.rsplit("/", 1)[-1]
    return (base.startswith("test_") or base.endswith(("_test.py", ".test.js", ".test.ts",
                                                       ".spec.ts", ".spec.js"))
            or "/tests/" in f"/{path}" or "/test/" in f"/{path}")


_CONTAINERS = {"src", "lib", "libs", "packages", "apps", "services", "modules", "internal", "pkg"}


def component(path: str, mapping: Mapping[str, str] | None = None) -> str:
    """``classify.components`` from config, else the top-level folder (past ``src/`` and friends)."""
    for pattern, name in (mapping or {}).items():
        if glob_match(path, pattern) or glob_match(path, pattern.rstrip("/") + "/**"):
            return str(name)
    parts = path.split("/")
    if len(parts) == 1:
        return "(root)"
    if parts[0] in _CONTAINERS and len(parts) > 2:
        return parts[1]
    return parts[0]


def staleness(age_days: float, half_life_days: float) -> float:
    """``1 - 0.5 ** (age / half_life)``, clamped to [0, 1]."""
    if age_days <= 0 or half_life_days <= 0:
        return 0.0
    return min(1.0, max(0.0, 1.0 - 0.5 ** (age_days / half_life_days)))


# -- CODEOWNERS -------------------------------------------------------------

CODEOWNERS_PATHS = ("CODEOWNERS", ".github/CODEOWNERS", ".gitlab/CODEOWNERS", "docs/CODEOWNERS")


class CodeOwners:
    """GitHub's CODEOWNERS: the last rule whose pattern matches the path names its owners."""

    def __init__(self, text: str = ""):
        self.rules: list[tuple[str, str]] = []
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith("#") or line.startswith("["):
                continue
            parts = line.split()
            if len(parts) < 2:
                continue
            self.rules.append((parts[0], " ".join(parts[1:])))

    def owner(self, path: str) -> str | None:
        for pattern, owners in reversed(self.rules):
            if glob_match(path, pattern):
                return owners
        return None
