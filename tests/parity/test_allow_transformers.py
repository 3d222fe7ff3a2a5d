"""--allow-transformers: an unsupported model_type is counted by transformers in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from .meta_count import transformers_count

pytest.importorskip("transformers")

# A model_type transformers builds and the family table has not (FNet: Fourier transforms in place of attention).
UNSUPPORTED = {"model_type": "fnet", "architectures": ["FNetForMaskedLM"], "hidden_size": 64, "num_hidden_layers": 2,
               "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 64}


def run(path, tmp_path, *flags):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), LSP_COUNT_PYTHON=sys.executable)
    return subprocess.run([sys.executable, "-m", "lsp_count", "--json", *flags, str(path)],
                          capture_output=True, text=True, timeout=300, env=env)


def test_unknown_type_is_refused_without_the_flag_and_counted_with_it(tmp_path) -> None:
    from lsp_count.core.families import supported_model_types

    assert UNSUPPORTED["model_type"] not in supported_model_types(), "pick a model_type the family table lacks"
    path = tmp_path / "config.json"
    path.write_text(json.dumps(UNSUPPORTED))
    refused = run(path, tmp_path)
    assert refused.returncode == 2
    assert json.loads(refused.stdout)["files"][0]["problems"][0]["code"] == "LC101"

    counted = run(path, tmp_path, "--allow-transformers")
    assert counted.returncode == 0, counted.stderr
    model = json.loads(counted.stdout)["files"][0]["models"][0]
    total, trainable = transformers_count(UNSUPPORTED)
    assert (model["params"]["total"], model["params"]["trainable"]) == (total, trainable)
    assert model["method"] == "transformers (meta device)"
    assert list((tmp_path / "cache" / "lsp-count" / "transformers-counts").glob("*.json")), "result not cached"


def test_a_class_transformers_cannot_build_is_a_located_error(tmp_path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "no_such_model_type_anywhere", "hidden_size": 8, "num_hidden_layers": 1}))
    done = run(path, tmp_path, "--allow-transformers")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    problem = json.loads(done.stdout)["files"][0]["problems"][0]
    assert problem["code"] == "LC101" and "could not count with transformers" in problem["message"]
    assert (problem["line"], problem["column"]) == (1, 16)
