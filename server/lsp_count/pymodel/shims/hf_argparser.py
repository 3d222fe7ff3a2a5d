"""What the analyser reads for transformers' ``HfArgumentParser``, read or not: transformers' own
builds an argparse parser from the dataclasses' field types, which the analyser does not follow.
It is never imported.

The parser turns the command line into one instance of each dataclass. The analysis takes the
command line that gives no arguments, as for argparse's ``parse_args()`` (``sys.argv``, noted), or
the list the code gives (``args=["--per_device_train_batch_size", "32", "--fp16"]``): each dataclass
is made with the values it sets (``--name value``, ``--name=value``, a bool's ``--name``, converted
by the field's annotation, ``Optional[int]`` as int, as transformers converts them, else by its
default's type) and its defaults, and a field without either is an
argument argparse requires, so the script exits there, as argparse does; a token no field takes is
transformers' ValueError, unless ``return_remaining_strings``. A dataclass the analyser cannot make is not known, the
others are (transformers' ``TrainingArguments`` is made with shims/transformers_trainer.py's
``__post_init__``).
``parse_dict`` makes them from a dict's keys, as transformers does.
"""

import dataclasses
import sys

from lsp_count_shim import attempt, stop


class HfArgumentParser:
    def __init__(self, dataclass_types=None, **kwargs):
        if dataclass_types is None:
            dataclass_types = []
        elif not isinstance(dataclass_types, (list, tuple)):
            dataclass_types = [dataclass_types]
        self.dataclass_types = list(dataclass_types)

    def parse_args_into_dataclasses(self, args=None, return_remaining_strings=False, look_for_args_file=True,
                                    args_filename=None, args_file_flag=None):
        given = sys.argv[1:] if args is None else list(args)
        values, remaining = _parsed(given, self.dataclass_types)
        outputs = [attempt(_made, cls, values) for cls in self.dataclass_types]
        if return_remaining_strings:
            outputs.append(remaining)
        elif remaining:
            stop(f"HfArgumentParser raises ValueError: Some specified arguments are not used by the "
                 f"HfArgumentParser: {remaining}")
        return tuple(outputs)

    def parse_dict(self, args, allow_extra_keys=False):
        unused = set(args.keys())
        outputs = []
        for cls in self.dataclass_types:
            keys = {field.name for field in dataclasses.fields(cls) if field.init}
            inputs = {k: v for k, v in args.items() if k in keys}
            unused.difference_update(inputs.keys())
            outputs.append(attempt(cls, **inputs))
        if not allow_extra_keys and unused:
            raise ValueError(f"Some keys are not used by the HfArgumentParser: {sorted(unused)}")
        return tuple(outputs)


def _made(cls, values):
    inputs = {}
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        if field.name in values:
            inputs[field.name] = values[field.name]
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            stop(f"HfArgumentParser's argparse exits: the argument `--{field.name}` is required (a command line "
                 f"that gives no arguments is taken)")
    return cls(**inputs)


def _parsed(tokens, classes):
    """The fields the command line sets, as argparse reads `--name value`, `--name=value` and a bool
    field's `--name` (`--fp16`) or `--name false`; the tokens no field takes are the remaining ones."""
    fields = {}
    for cls in classes:
        for field in dataclasses.fields(cls):
            if field.init:
                fields[field.name] = field
    values = {}
    remaining = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        name, equals, inline = token[2:].partition("=") if token.startswith("--") else ("", "", "")
        field = fields.get(name.replace("-", "_"))
        if field is None:
            remaining.append(token)
            i += 1
            continue
        kind = _kind(field)
        if equals:
            raw = inline
        elif kind == "bool":
            raw = "true"
            if i + 1 < len(tokens) and tokens[i + 1].lower() in ("true", "false", "yes", "no", "1", "0"):
                raw = tokens[i + 1]
                i += 1
        elif i + 1 < len(tokens):
            raw = tokens[i + 1]
            i += 1
        else:
            stop(f"HfArgumentParser's argparse exits: the argument `--{field.name}` expects one argument")
        if kind == "bool":
            values[field.name] = raw.lower() in ("true", "yes", "1")
        elif kind == "int":
            values[field.name] = int(raw)
        elif kind == "float":
            values[field.name] = float(raw)
        else:
            values[field.name] = raw
        i += 1
    return values, remaining


def _kind(field):
    """bool, int, float or str: what argparse converts a field's value to, by its annotation as
    transformers reads it (`Optional[int]` / `int | None`: int; an annotation written as text, under
    `from __future__ import annotations`, by that text), else by its default's type."""
    annotation = field.type
    if isinstance(annotation, str):
        text = annotation.replace(" ", "")
        for wrapper in ("Optional[", "typing.Optional["):
            if text.startswith(wrapper) and text.endswith("]"):
                text = text[len(wrapper):-1]
        parts = [p for p in text.split("|") if p != "None"]
        if len(parts) == 1 and parts[0] in ("bool", "int", "float", "str"):
            return parts[0]
    else:
        # (the analyser gives `Optional[int]` and `int | None` as a tuple of their members)
        options = [a for a in (annotation if isinstance(annotation, tuple) else (annotation,))
                   if a is not None and a is not type(None)]
        if len(options) == 1 and options[0] in (bool, int, float, str):
            return options[0].__name__
    default = field.default
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "int"
    if isinstance(default, float):
        return "float"
    return "str"
