"""The checkable claims of docs/editors.md: the schema command, the modeline, the VS Code
settings, the draft-07 compatibility, the pre-commit hook and the plain git hook."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

import rulespec
from rulespec import compile_text
from rulespec.source import load_yaml
from tests.conftest import GAMES, ROOT

DOC = ROOT / "docs" / "editors.md"
DOC_TEXT = DOC.read_text(encoding="utf-8")
SCHEMA_FILE = ROOT / "rulespec" / "schema.json"
CLI = [sys.executable, "-m", "interpreter.cli"]

_SPEC = "rulespec: 1\ngame: {name: NAME, players: 2}\nround:\n  turn: [end round]\nmatch:\n  end_when: "
VALID_SPEC = _SPEC.replace("NAME", "Fine") + "round >= 2\n"
INVALID_SPEC = _SPEC.replace("NAME", "Broken") + "rounds >= 2\n"


def blocks(lang: str) -> list[str]:
    return [m.group(1) for m in re.finditer(rf"^```{lang}\n(.*?)^```$", DOC_TEXT, re.M | re.S)]


def run(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=60, **kwargs)


# ---------------------------------------------------------------------------------- the schema


def test_rulespec_schema_prints_exactly_the_schema_file(tmp_path: Path):
    assert "rulespec schema > rulespec.schema.json" in blocks("sh")[0]
    result = run(CLI + ["schema"])
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout == SCHEMA_FILE.read_text(encoding="utf-8") == rulespec.schema_text()


def test_the_rulespec_command_is_the_cli_entry_point():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["scripts"]["rulespec"] == "interpreter.__main__:main"
    import inspect

    import interpreter.__main__ as entry

    assert "from .cli import main" in inspect.getsource(entry.main)  # a thin launcher of the CLI


def test_the_schema_is_a_valid_draft_2020_12_schema():
    data = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert data["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(data)
    assert jsonschema.validators.validator_for(data) is jsonschema.Draft202012Validator


DRAFT7_KEYWORDS = {
    "$schema", "$id", "$ref", "$comment", "title", "description", "default", "examples", "readOnly", "writeOnly",
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "items", "additionalItems", "maxItems", "minItems", "uniqueItems",
    "contains", "maxProperties", "minProperties", "required", "properties", "patternProperties",
    "additionalProperties", "dependencies", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not",
    "format", "contentMediaType", "contentEncoding", "definitions",
}
ANNOTATIONS = {"description", "title", "$comment", "default", "examples"}


def _schema_objects(node: Any, out: list[dict]) -> None:
    """Every subschema (not the name maps under properties / $defs)."""
    if isinstance(node, dict):
        out.append(node)
        for key, value in node.items():
            if key in ("properties", "patternProperties", "$defs", "definitions"):
                for sub in value.values():
                    _schema_objects(sub, out)
            elif key in ("enum", "const", "required", "default", "examples"):
                continue
            else:
                _schema_objects(value, out)
    elif isinstance(node, list):
        for item in node:
            _schema_objects(item, out)


def test_the_schema_uses_only_keywords_draft_07_editors_understand():
    data = rulespec.schema()
    objects: list[dict] = []
    _schema_objects(data, objects)
    used = {key for obj in objects for key in obj}
    assert used - DRAFT7_KEYWORDS <= {"$defs"}
    # draft-07 ignores the siblings of $ref: here they are only annotations
    for obj in objects:
        if "$ref" in obj:
            assert set(obj) - {"$ref"} <= ANNOTATIONS, obj


def _documents() -> list[Any]:
    docs = [load_yaml(p.read_text(encoding="utf-8"), str(p)) for p in sorted(GAMES.glob("*.yaml"))]
    docs.append(load_yaml(VALID_SPEC, "valid.yaml"))
    docs += [
        {"game": {"name": "x", "players": 0}, "round": {"turn": ["pass"], "phases": []}},
        {"game": {"name": "x", "players": 2, "seats": 3}, "round": {}, "zones": {"deck": {"per": "team"}}},
        {"game": {"name": "x", "players": 2}, "round": {"turn": [{"if": "true"}, {"choose": ["a", {"for": "x"}]}]}},
        {"extends": "base.yaml", "patches": [{"op": "add", "path": "/x"}]},
    ]
    return docs


def test_draft_07_and_draft_2020_12_validators_agree_on_specs():
    data = rulespec.schema()
    new = jsonschema.Draft202012Validator(data)
    old = jsonschema.Draft7Validator({k: v for k, v in data.items() if k != "$schema"})
    for doc in _documents():
        plain = json.loads(json.dumps(doc))
        errors_new = sorted((list(e.absolute_path), e.validator) for e in new.iter_errors(plain))
        errors_old = sorted((list(e.absolute_path), e.validator) for e in old.iter_errors(plain))
        assert errors_new == errors_old


# ---------------------------------------------------------------------------------- modeline and settings


def test_the_modeline_example_is_a_valid_spec_whose_schema_path_resolves_from_games():
    example = next(b for b in blocks("yaml") if b.startswith("# yaml-language-server:"))
    match = re.match(r"# yaml-language-server: \$schema=(\S+)\n", example)
    assert match is not None
    assert (GAMES / match.group(1)).resolve() == SCHEMA_FILE.resolve()
    compile_text(example, str(GAMES / "example.yaml"))


def test_the_seed_games_start_with_the_modeline():
    for name in ("highhand.yaml", "highjack.yaml"):
        first = (GAMES / name).read_text(encoding="utf-8").splitlines()[0]
        assert first == "# yaml-language-server: $schema=../rulespec/schema.json", name


def test_the_vscode_settings_map_the_schema_to_the_games():
    (settings_text,) = blocks("json")
    settings = json.loads(settings_text)
    schemas = settings["yaml.schemas"]
    assert list(schemas) == ["./rulespec/schema.json"]
    assert (ROOT / "rulespec" / "schema.json").is_file()
    patterns = schemas["./rulespec/schema.json"]
    matched = {p for pattern in patterns for p in ROOT.glob(pattern)}
    assert set(GAMES.glob("*.yaml")) <= matched
    assert settings["yaml.yamlVersion"] == "1.1"


def test_rulespec_reads_yes_and_no_as_yaml_1_1_booleans():
    assert load_yaml("a: yes\nb: no\nc: on\nd: off\n", "x.yaml") == {"a": True, "b": False, "c": True, "d": False}


# ---------------------------------------------------------------------------------- pre-commit


def _precommit_hook() -> dict[str, Any]:
    config = next(yaml.safe_load(b) for b in blocks("yaml") if b.startswith("repos:"))
    (repo,) = config["repos"]
    assert repo["repo"] == "local"
    (hook,) = repo["hooks"]
    return hook


def test_the_precommit_hook_runs_rulespec_validate_on_the_games():
    hook = _precommit_hook()
    assert set(hook) <= {"id", "name", "entry", "language", "files", "pass_filenames", "types"}
    assert hook["id"] == "rulespec-validate" and hook["language"] == "system"
    assert shlex.split(hook["entry"])[:2] == ["rulespec", "validate"]
    files = re.compile(hook["files"])
    for path in sorted(GAMES.glob("*.yaml")):
        assert files.search(path.relative_to(ROOT).as_posix()), path
    assert files.search("games/variants/long.yml")
    for path in ("tests/specs/invalid/duplicate_key.yaml", "docs/language.md", "games/README.md"):
        assert not files.search(path), path


def test_the_precommit_entry_passes_valid_files_quietly_and_stops_on_invalid_ones(tmp_path: Path):
    entry = shlex.split(_precommit_hook()["entry"])
    assert entry[0] == "rulespec"
    command = CLI + entry[1:]
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text(VALID_SPEC, encoding="utf-8")
    bad.write_text(INVALID_SPEC, encoding="utf-8")
    ok = run(command + [str(good)])
    assert ok.returncode == 0 and ok.stdout == "" and ok.stderr == ""
    failed = run(command + [str(good), str(bad)])
    assert failed.returncode == 1
    assert f"{bad}:6:13: error: unknown name 'rounds'" in failed.stderr
    assert failed.stderr.rstrip().endswith(f"{bad}: 1 problem")


# ---------------------------------------------------------------------------------- the plain git hook


def _shim(folder: Path) -> Path:
    """A `rulespec` command on a private PATH that runs this checkout's CLI."""
    folder.mkdir()
    script = folder / "rulespec"
    script.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m interpreter.cli \"$@\"\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder


def test_the_git_hook_blocks_commits_of_invalid_specs(tmp_path: Path):
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    (hook_text,) = [b for b in blocks("sh") if b.startswith("#!/bin/sh")]
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({
        "PATH": f"{_shim(tmp_path / 'bin')}{os.pathsep}{env.get('PATH', '')}",
        "PYTHONPATH": str(ROOT), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
        "HOME": str(tmp_path),
    })

    def git_run(*args: str) -> subprocess.CompletedProcess:
        return run([git, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false",
                    "-c", "core.hooksPath=.git/hooks", *args], cwd=repo, env=env)

    assert git_run("init", "-q").returncode == 0
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(hook_text, encoding="utf-8")
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)
    (repo / "games").mkdir()
    (repo / "notes.txt").write_text("not a spec\n", encoding="utf-8")
    assert git_run("add", "notes.txt").returncode == 0
    assert git_run("commit", "-q", "-m", "no specs staged").returncode == 0

    (repo / "games" / "good.yaml").write_text(VALID_SPEC, encoding="utf-8")
    assert git_run("add", "games/good.yaml").returncode == 0
    committed = git_run("commit", "-q", "-m", "a valid spec")
    assert committed.returncode == 0, committed.stderr

    (repo / "games" / "bad.yaml").write_text(INVALID_SPEC, encoding="utf-8")
    assert git_run("add", "games/bad.yaml").returncode == 0
    refused = git_run("commit", "-q", "-m", "an invalid spec")
    assert refused.returncode != 0
    assert "games/bad.yaml:6:13: error: unknown name 'rounds'" in refused.stderr
    assert git_run("rev-list", "--count", "HEAD").stdout.strip() == "2"
