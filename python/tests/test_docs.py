"""The documentation's Python examples run, so they cannot drift: every ```python block of
docs/python.md and of README.md's Python section, in order, one namespace per document, from the
repository root (matplotlib without a display), and the docstring examples (doctest). Examples on
the GPU are skipped without one. To keep CI fast, data sizes written 100_000 run at 3_000 (the
same code otherwise). Run by CTest (python_kmeans_studio)."""
import doctest
import os
import pathlib
import re

import pytest

import kmeans_studio
from kmeans_studio import _estimator

ROOT = pathlib.Path(__file__).resolve().parents[2]


def python_blocks(path, section=None):
    text = path.read_text()
    if section:  # only the blocks under this heading, up to the next heading of its level
        start = text.index(section)
        level = section.split(" ")[0]
        end = text.find("\n" + level + " ", start + len(section))
        text = text[start:end if end >= 0 else len(text)]
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def run_blocks(blocks, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    monkeypatch.chdir(ROOT)
    namespace = {}
    ran = 0
    for block in blocks:
        if "cuda" in block and not kmeans_studio.backends()["cuda"][0]:
            continue
        code = block.replace("100_000", "3_000")
        exec(compile(code, "<example>", "exec"), namespace)
        ran += 1
    assert ran > 0


def test_docs_python_md_examples_run(monkeypatch):
    blocks = python_blocks(ROOT / "docs" / "python.md")
    assert len(blocks) >= 5
    run_blocks(blocks, monkeypatch)


def test_readme_python_examples_run(monkeypatch):
    blocks = python_blocks(ROOT / "README.md", "## From Python")
    assert len(blocks) >= 2
    run_blocks(blocks, monkeypatch)


def test_docstring_examples():
    failures, tried = doctest.testmod(_estimator, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failures == 0


def test_every_public_method_documents_parameters_and_returns():
    for name in ("fit", "predict", "fit_predict", "transform", "fit_transform", "score"):
        doc = getattr(kmeans_studio.KMeans, name).__doc__
        assert "Parameters" in doc and "Returns" in doc, name
    for function in (kmeans_studio.k_means, kmeans_studio.kmeans_plusplus):
        assert "Parameters" in function.__doc__ and "Returns" in function.__doc__
    attributes = kmeans_studio.KMeans.__doc__.split("Attributes")[1]
    for attribute in ("cluster_centers_", "labels_", "inertia_", "n_iter_", "n_features_in_", "history_",
                      "restarts_", "stop_reason_", "solver_", "solver_choice_"):
        assert attribute in attributes, attribute
