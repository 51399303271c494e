"""The pre-push hook's check and ``genesis check`` build their options one way
(``CheckOptions.from_settings``) and judge ``fail_on`` one way (``CheckResult.fails``), so
the two cannot drift: the same ``[check]`` settings give the same ranking, in process on a
real repository with a real store."""

from __future__ import annotations

from pathlib import Path

import pytest

from genesis_git.app.facade import Genesis
from genesis_git.check import CheckOptions, check
from genesis_git.config.schema import CheckSettings
from genesis_git.config.settings import load_config
from genesis_git.hooks.prepush_check import check_push
from genesis_git.kernel.errors import UsageError

from helpers import commit_files, git, make_repo, write

ORDER = "class Order:\n    def total(self):\n        return {n}\n"
SCHEMA = "from models.order import Order\n\n\ndef dump(o: Order):\n    return {{'total': {n}}}\n"


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "shop", {"models/order.py": ORDER.format(n=0),
                                         "api/order_schema.py": SCHEMA.format(n=0),
                                         "docs/orders.md": "Order.total is the sum.\n"})
    for n in range(1, 6):
        commit_files(root, f"order total {n}", {"models/order.py": ORDER.format(n=n),
                                                "api/order_schema.py": SCHEMA.format(n=n),
                                                "docs/orders.md": f"Order.total {n}\n"})
    commit_files(root, "order total 6", {"models/order.py": ORDER.format(n=6)})
    return root


def test_the_options_come_from_the_settings_and_are_checked() -> None:
    settings = CheckSettings(min_confidence=0.25, top=3, sources=("co-change", "docs"))
    assert CheckOptions.from_settings(settings) == CheckOptions(0.25, 3, ("co-change", "docs"))
    assert CheckOptions.from_settings(settings, min_confidence=0.0, top=1,
                                      sources=["tests"]) == CheckOptions(0.0, 1, ("tests",))
    for kwargs, line in (
            ({"sources": ["co-change", "blame"]}, "unknown source 'blame'; the sources are "
                                                  "co-change, references, tests, story, docs"),
            ({"min_confidence": 1.5}, "--min-confidence must be between 0 and 1 (got 1.5)"),
            ({"top": 0}, "--top must be at least 1 (got 0)")):
        with pytest.raises(UsageError) as err:
            CheckOptions.from_settings(settings, **kwargs)  # type: ignore[arg-type]
        assert str(err.value) == line


def _push_lines(root: Path) -> list[list[str]]:
    tip, base = git(root, "rev-parse", "HEAD", "HEAD~1").split()
    return [["refs/heads/main", tip, "refs/heads/main", base]]


def test_the_hook_ranks_as_the_command_with_the_same_settings(
        shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(shop, ".genesis.toml", "[check]\npre_push = true\nmin_confidence = 0.05\ntop = 1\n"
                                 "sources = [\"co-change\", \"docs\", \"story\"]\n")
    with Genesis(shop) as g:
        g.sessions.start(prebuild=False)
        command = g.check.run("HEAD~1..HEAD", story=False)
        store = str(g.workspace.store_path)
    [top] = command.missing  # top = 1
    assert top.path in {"api/order_schema.py", "docs/orders.md"}
    assert check_push(str(shop), store, _push_lines(shop), load_config(shop)) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("genesis: warning: the commits pushed may have forgotten 1 file")
    [line] = err[1:]  # top = 1 here too: the settings reached the hook
    assert line.startswith(f"  {top.confidence:.2f} {top.path}  ({top.reasons[0].source}: ")


def test_fail_on_is_judged_one_way(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from genesis_git.git.repo import find_repo

    result = check(find_repo(shop), "HEAD~1..HEAD", CheckOptions(min_confidence=0.0))
    best = max(m.confidence for m in result.missing)
    assert result.fails(best) and not result.fails(best + 0.001) and not result.fails(0)
    for fail_on, code in ((round(best - 0.005, 3), 6), (round(best + 0.005, 3), 0)):
        write(shop, ".genesis.toml", f"[check]\npre_push = true\nfail_on = {fail_on}\n")
        assert check_push(str(shop), str(shop / "none.db"), _push_lines(shop),
                          load_config(shop)) == code
        refused = "genesis: error: push refused: a file reached check.fail_on"
        assert (refused in capsys.readouterr().err) == (code == 6)


def test_a_check_that_fails_says_why_on_one_line_without_raw_escapes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gone = tmp_path / "sh\x1b[31mop\nnext"  # a hook's root that vanished, its name hostile
    write(tmp_path, ".genesis.toml", "[check]\npre_push = true\n")
    assert check_push(str(gone), str(tmp_path / "none.db"), [], load_config(tmp_path)) == 0
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("genesis: warning: the pre-push check did not run (")
    assert "\x1b" not in line and "sh\\033[31mop\\nnext: no such directory)" in line
