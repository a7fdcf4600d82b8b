"""[tool.boundlint]: discovery, every key, every error kind, and the docs agree with the settings."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from boundlint.cli import main
from boundlint.patterns import PerFileIgnores
from boundlint.config import (
    REQUEST_MODEL_PATTERNS, ConfigError, Settings, documented_keys, find_config, load_config,
    merge_cli, settings_from_table,
)

ROOT = Path(__file__).resolve().parent.parent


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# -- selection -----------------------------------------------------------------------

def test_longest_prefix_decides_and_ignore_wins_ties():
    s = Settings(select=("BND1",), ignore=("BND10",), extend_select=("BND101",))
    assert s.enabled("BND101") and not s.enabled("BND102") and not s.enabled("BND201")
    assert not Settings(select=("BND1",), ignore=("BND1",)).enabled("BND101")


def test_bnd900_is_on_by_default():
    assert Settings().enabled("BND900") and Settings(select=("BND",)).enabled("BND900")
    assert not Settings(extend_ignore=("BND9",)).enabled("BND900")


def test_opt_in_codes_need_an_explicit_prefix(monkeypatch):
    import boundlint.config

    monkeypatch.setattr(boundlint.config, "OPT_IN", ("BND9",))  # none are opt-in today; the mechanism stays
    assert not Settings().enabled("BND900")
    assert not Settings(select=("BND",)).enabled("BND900")
    assert Settings(select=("BND900",)).enabled("BND900")
    assert Settings(extend_select=("BND9",)).enabled("BND900")
    assert Settings(extend_select=("BND9",)).enabled("BND101")


# -- discovery -----------------------------------------------------------------------

def test_found_from_first_path_upward(tmp_path):
    cfg = write(tmp_path / "proj" / "pyproject.toml", '[tool.boundlint]\nselect = ["BND1"]\n')
    write(tmp_path / "proj" / "pkg" / "pyproject.toml", "[project]\nname = 'x'\n")  # no [tool.boundlint]: skipped
    target = write(tmp_path / "proj" / "pkg" / "mod.py", "")
    assert find_config(str(target)) == str(cfg)
    config = load_config([str(target)])
    assert config.path == str(cfg) and config.root == str(cfg.parent)
    assert config.settings.select == ("BND1",)


def test_search_stops_at_repository_root(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.boundlint]\nselect = ["BND1"]\n')
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    target = write(tmp_path / "repo" / "src" / "mod.py", "")
    assert find_config(str(target)) is None
    assert load_config([str(target)]).settings == Settings()


def test_config_at_repository_root_is_found(tmp_path):
    (tmp_path / ".git").mkdir()
    cfg = write(tmp_path / "pyproject.toml", "[tool.boundlint]\n")
    assert find_config(str(tmp_path / "a" / "b" / "missing.py")) == str(cfg)


def test_explicit_config_file_and_isolated(tmp_path):
    other = write(tmp_path / "boundlint.toml", 'select = ["BND2"]\n')
    write(tmp_path / "pyproject.toml", '[tool.boundlint]\nselect = ["BND1"]\n')
    assert load_config([str(tmp_path)], str(other)).settings.select == ("BND2",)
    assert load_config([str(tmp_path)]).settings.select == ("BND1",)
    assert load_config([str(tmp_path)], isolated=True).settings == Settings()


# -- every key --------------------------------------------------------------------------

FULL = """
[tool.boundlint]
select = ["bnd1", "BND2"]
ignore = ["BND104"]
extend-select = ["BND900"]
extend-ignore = ["BND201"]
exclude = ["gen/"]
extend-exclude = ["*_pb2.py"]
respect-gitignore = false
timeout = 5

[tool.boundlint.per-file-ignores]
"tests/**" = ["BND1"]

[tool.boundlint.limits]
bounded-names = ["replica_sets"]

[tool.boundlint.fanout]
limiter-helpers = ["app.util.gather_limited"]

[tool.boundlint.request-shape]
request-model-patterns = ["*Cmd"]
extra-model-bases = ["app.schema.ApiModel"]
extra-endpoint-decorators = ["app.web.route"]

[tool.boundlint.amplification]
logger-names = ["audit"]
rate-limited-loggers = ["app.log.throttled"]

[tool.boundlint.churn]
client-factories = ["app.net.make_client"]
"""


def test_every_key_reaches_settings(tmp_path):
    cfg = write(tmp_path / "pyproject.toml", FULL)
    s = load_config(config_file=str(cfg)).settings
    assert s.select == ("BND1", "BND2") and s.ignore == ("BND104",)
    assert s.extend_select == ("BND900",) and s.extend_ignore == ("BND201",)
    assert s.exclude == ("gen/",) and s.extend_exclude == ("*_pb2.py",)
    assert s.respect_gitignore is False and s.timeout == 5.0
    assert s.per_file_ignores == (("tests/**", ("BND1",)),)
    assert s.option("bounded-names") == ("replica_sets",)
    assert s.option("limiter-helpers") == ("app.util.gather_limited",)
    assert s.option("request-model-patterns") == ("*Cmd",)
    assert s.option("extra-model-bases") == ("app.schema.ApiModel",)
    assert s.option("extra-endpoint-decorators") == ("app.web.route",)
    assert s.option("logger-names") == ("audit",)
    assert s.option("rate-limited-loggers") == ("app.log.throttled",)
    assert s.option("client-factories") == ("app.net.make_client",)
    hash(s)  # frozen settings stay hashable (worker processes and caches key on them)
    assert s.fingerprint() != Settings().fingerprint()


def test_unset_options_fall_back_to_the_rules_defaults():
    s = settings_from_table({})
    assert s == Settings()
    assert s.option("request-model-patterns", ("*Request",)) == ("*Request",)


def test_cli_flags_override_the_file():
    s = Settings(select=("BND1",), extend_ignore=("BND104",), exclude=("a/",))
    merged = merge_cli(s, select=("BND2",), extend_ignore=("BND201",), exclude=None, respect_gitignore=False)
    assert merged.select == ("BND2",) and merged.extend_ignore == ("BND104", "BND201")
    assert merged.exclude == ("a/",) and merged.respect_gitignore is False


def test_per_file_ignores_globs(tmp_path):
    pfi = PerFileIgnores([("tests/**", ("BND1",)), ("*_pb2.py", ("BND2",)), ("scripts/*.py", ("BND101",))], str(tmp_path))
    assert pfi.ignored(str(tmp_path / "tests" / "unit" / "t.py"), "BND103")
    assert not pfi.ignored(str(tmp_path / "tests" / "unit" / "t.py"), "BND201")
    assert pfi.ignored(str(tmp_path / "deep" / "x_pb2.py"), "BND201")
    assert pfi.ignored(str(tmp_path / "scripts" / "run.py"), "BND101")
    assert not pfi.ignored(str(tmp_path / "scripts" / "sub" / "run.py"), "BND101")


# -- errors: one line, exit 2 ---------------------------------------------------------------

ERRORS = [
    ("unknown_key", '[tool.boundlint]\nselct = ["BND1"]\n',
     "pyproject.toml: unknown key 'selct' in [tool.boundlint]; did you mean 'select'?"),
    ("unknown_table_key", '[tool.boundlint.request-shape]\nrequest-model-pattern = ["*Req"]\n',
     "pyproject.toml: unknown key 'request-model-pattern' in [tool.boundlint.request-shape]; "
     "did you mean 'request-model-patterns'?"),
    ("unknown_table", '[tool.boundlint.fan-out]\nlimiter-helpers = []\n',
     "pyproject.toml: unknown key 'fan-out' in [tool.boundlint]; did you mean 'fanout'?"),
    ("option_at_top_level", '[tool.boundlint]\nlogger-names = ["audit"]\n',
     "pyproject.toml: unknown key 'logger-names' in [tool.boundlint]; it belongs in [tool.boundlint.amplification]"),
    ("wrong_type", '[tool.boundlint]\nselect = "BND1"\n',
     'pyproject.toml: tool.boundlint.select must be a list of rule codes or prefixes, got a string: "BND1"'),
    ("wrong_type_bool", '[tool.boundlint]\nrespect-gitignore = "yes"\n',
     'pyproject.toml: tool.boundlint.respect-gitignore must be true or false, got a string: "yes"'),
    ("wrong_type_option", '[tool.boundlint.churn]\nclient-factories = [1]\n',
     "pyproject.toml: tool.boundlint.churn.client-factories must be a list of strings, got a list: [1]"),
    ("broken_toml", '[tool.boundlint\nselect = ["BND1"]\n',
     "pyproject.toml: invalid TOML: Expected ']' at the end of a table declaration (at line 1, column 16)"),
    ("unknown_code", '[tool.boundlint]\nselect = ["BND1", "BND10X"]\n',
     "pyproject.toml: tool.boundlint.select: unknown rule code or prefix 'BND10X'; did you mean"),
    ("unknown_code_per_file", '[tool.boundlint.per-file-ignores]\n"tests/*" = ["XYZ1"]\n',
     "pyproject.toml: tool.boundlint.per-file-ignores.\"tests/*\": unknown rule code or prefix 'XYZ1'"),
]


@pytest.mark.parametrize(("text", "message"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_config_errors_exit_2_with_one_line(tmp_path, monkeypatch, capsys, text, message):
    write(tmp_path / "pyproject.toml", text)
    write(tmp_path / "mod.py", "x = 1\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "mod.py"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("boundlint: error: " + message), err


def test_config_error_in_a_real_process_has_no_traceback(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.boundlint]\nselect = [\n")
    write(tmp_path / "mod.py", "x = 1\n")
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "mod.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("boundlint: error: pyproject.toml: invalid TOML: ")
    assert proc.stderr.count("\n") == 1


def test_unknown_code_on_the_command_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--select", "BND1,BND199", "."]) == 2
    assert capsys.readouterr().err == "boundlint: error: --select: unknown rule code or prefix 'BND199'; did you mean 'BND104'?\n"


def test_missing_config_file(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--config", "nope.toml", "."]) == 2
    assert capsys.readouterr().err == "boundlint: error: nope.toml: config file does not exist\n"


def test_settings_from_table_raises_config_error():
    with pytest.raises(ConfigError, match=r"^x.toml: unknown key 'timout' in \[tool.boundlint\]; did you mean 'timeout'\?$"):
        settings_from_table({"timout": 3}, "x.toml")


# -- docs/configuration.md agrees with the settings -------------------------------------------

ROW = re.compile(r"^\| `([a-z][a-z.-]*)` \| [^|]+ \| `([^`]*)` \|", re.M)


def test_docs_list_every_key_with_its_default():
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    documented = dict(ROW.findall(text))
    assert documented == documented_keys()


def test_documented_defaults_are_the_real_defaults():
    s = Settings()
    keys = documented_keys()
    assert keys["select"] == '["' + '", "'.join(s.select) + '"]'
    assert keys["respect-gitignore"] == ("true" if s.respect_gitignore else "false")
    assert float(keys["timeout"]) == s.timeout
    assert keys["request-shape.request-model-patterns"] == '["' + '", "'.join(REQUEST_MODEL_PATTERNS) + '"]'


def test_docs_example_loads(tmp_path):
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    example = re.search(r"```toml\n(.*?)```", text, re.S).group(1)
    cfg = write(tmp_path / "pyproject.toml", example)
    s = load_config(config_file=str(cfg)).settings
    assert s.enabled("BND900") and s.enabled("BND101") and not s.enabled("BND303")


def test_readme_example_loads(tmp_path):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for example in re.findall(r"```toml\n(.*?)```", text, re.S):
        if "[tool.boundlint" in example:
            load_config(config_file=str(write(tmp_path / "pyproject.toml", example)))


def test_every_analysis_option_reaches_a_rule():
    """An option parsed but read by no rule is a lie in the docs: each name must be read somewhere."""
    from boundlint.config import FAMILY_TABLES

    sources = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "src" / "boundlint").rglob("*.py")
                        if p.name != "config.py")
    for options in FAMILY_TABLES.values():
        for name in options:
            assert f'"{name}"' in sources, f"no rule reads the {name!r} option"


LIMITED_BY_HELPER = """\
import asyncio

from app.pools import checkout


async def handler(ids):
    await asyncio.gather(*(fetch(i) for i in ids))


async def fetch(i):
    async with checkout("db"):
        return i
"""


def test_limiter_helpers_option_makes_a_helper_a_limit(tmp_path):
    from boundlint.engine import check_source

    assert [f.code for f in check_source(LIMITED_BY_HELPER, "m.py", Settings())] == ["BND101"]
    cfg = write(tmp_path / "pyproject.toml", '[tool.boundlint.fanout]\nlimiter-helpers = ["app.pools.checkout"]\n')
    assert check_source(LIMITED_BY_HELPER, "m.py", load_config(config_file=str(cfg)).settings) == []


# -- the numbers fixes write ------------------------------------------------------------------

def test_fix_numbers_are_read_and_validated(tmp_path):
    cfg = write(tmp_path / "pyproject.toml", "[tool.boundlint]\nfix-max-items = 250\nfix-concurrency = 8\n")
    loaded = load_config(config_file=str(cfg))
    assert (loaded.settings.option("fix-max-items"), loaded.settings.option("fix-concurrency")) == (250, 8)
    assert {"extra.fix-max-items", "extra.fix-concurrency"} <= loaded.keys
    for bad, got in (("0", "an integer: 0"), ("2.5", "a float: 2.5"), ("true", "a boolean: true"), ('"9"', 'a string: "9"')):
        write(tmp_path / "pyproject.toml", f"[tool.boundlint]\nfix-max-items = {bad}\n")
        with pytest.raises(ConfigError) as caught:
            load_config(config_file=str(cfg))
        assert str(caught.value).endswith(f"pyproject.toml: tool.boundlint.fix-max-items must be a positive integer, got {got}")


def test_fix_numbers_change_no_fingerprint():
    # they change no finding, so a run with them set is served from the same cache entries
    assert settings_from_table({"fix-max-items": 10, "fix-concurrency": 4}).fingerprint() == Settings().fingerprint()
    with pytest.raises(ConfigError, match=r"^x.toml: unknown key 'fix-max-item' in \[tool.boundlint\]; did you mean 'fix-max-items'\?$"):
        settings_from_table({"fix-max-item": 10}, "x.toml")


def test_extend_safe_fixes_moves_a_code_between_safe_and_unsafe():
    from boundlint.finding import Finding
    from boundlint.fixes.apply import applicability

    field = Finding("a.py", 5, 5, "BND201", "m", 5, 20, fix="request-field:pydantic")
    assert applicability(field) == applicability(field, Settings()) == "unsafe"
    promoted = settings_from_table({"extend-safe-fixes": ["BND2"]})
    assert applicability(field, promoted) == "safe"
    assert applicability(field, settings_from_table({"extend-safe-fixes": ["BND2"], "extend-unsafe-fixes": ["BND201"]})) == "unsafe"
    assert applicability(field._replace(fix=""), promoted) is None
    assert applicability(field._replace(code="BND301", fix="suggestion"), settings_from_table(
        {"extend-safe-fixes": ["BND3"]})) == "display-only"
    with pytest.raises(ConfigError, match=r"extend-safe-fixes: unknown rule code or prefix 'BND299'"):
        settings_from_table({"extend-safe-fixes": ["BND299"]}, "x.toml")
