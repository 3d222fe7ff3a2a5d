"""Number and table formatting shared by hovers, hints and lenses."""

from __future__ import annotations

from lsp_count.core.params import exact_count, short_count

_GiB = 1 << 30
_SHORT_DTYPES = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32", "float8": "fp8"}


def gib(n: int) -> str:
    return f"{n / _GiB:.2f} GiB"


def dtype_label(dtype: object) -> str:
    text = str(getattr(dtype, "value", dtype))
    return _SHORT_DTYPES.get(text, text)


def both(n: int) -> str:
    """``8.03B · `8,030,261,248```: short for the eye, exact for the record."""
    return f"{short_count(n)} · `{exact_count(n)}`"


def signed(n: int) -> str:
    return ("+" if n >= 0 else "−") + short_count(abs(n))


def bar(fraction: float, width: int = 12) -> str:
    """A small text bar; monospace so it lines up in any Markdown renderer."""
    fraction = min(max(fraction, 0.0), 1.0)
    full = round(fraction * width)
    return "`" + "█" * full + "░" * (width - full) + "`"


def table(header: tuple[str, ...], rows: list[tuple[str, ...]], align: str) -> str:
    """Markdown table; ``align`` is one of l/r per column."""
    marks = {"l": ":--", "r": "--:"}
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(marks[a] for a in align) + "|"]
    out.extend("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows)
    return "\n".join(out)
