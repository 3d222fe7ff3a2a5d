"""An unsupported model_type's LC101 names the nearest supported types and how many there are, not all of them."""

from __future__ import annotations

from lsp_count.core.analyze import analyze_text
from lsp_count.core.families import supported_model_types


def _message(model_type: str) -> str:
    report = analyze_text(f'{{"model_type": "{model_type}", "hidden_size": 64}}', "model/config.json")
    [problem] = [p for p in report.problems if p.code == "LC101"]
    return problem.message


def test_the_nearest_supported_types_come_first_and_the_list_is_not_all_of_them() -> None:
    message = _message("gemma3n")
    assert "nearest supported: gemma3n_audio, gemma3n_text, gemma3, gemma," in message
    assert f"{len(supported_model_types())} model types in all" in message
    assert "zamba2" not in message and len(message) < 300
    assert "nearest supported: llama," in _message("lama")  # a slip


def test_a_type_near_nothing_names_none() -> None:
    message = _message("my_new_arch")
    assert "nearest" not in message and "model types in all" in message and "--allow-transformers" in message
